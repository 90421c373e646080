import { BudgetExceededError, LimitExceededError } from '../errors.ts';
import { MemorySpendStore, type SpendStore } from './spend-store.ts';

/** What a budget counts spend by: one trace, one agent, one workflow name, or one API key of `serve`. */
export type BudgetScope = 'trace' | 'agent' | 'workflow' | 'key';
/** The window spend is summed over: a calendar day or month (UTC), or the whole life of the scope's value. */
export type BudgetWindow = 'minute' | 'day' | 'month' | 'lifetime';

/** Dollars, or tokens (a rate limit: `{ scope: 'key', tokens: 100_000, window: 'minute' }`), per window. */
export type BudgetRule =
  | { scope: BudgetScope; usd: number; window: BudgetWindow; tokens?: undefined }
  | { scope: BudgetScope; tokens: number; window: BudgetWindow; usd?: undefined };

/**
 * `createGateway({ budgets })`: `perTrace: 2.5` stops a runaway agent's next call once its trace has spent $2.50;
 * `rules` sets any others (per agent per day, per workflow per month…).
 */
export interface BudgetOptions {
  perTrace?: number;
  rules?: BudgetRule[];
  /** Distinct values (traces, agents…) counted at once; the least recently charged are forgotten. Default 100,000. */
  maxTracked?: number;
  /** Where spend is counted: this process (default), or a store shared by replicas (`RedisSpendStore`). */
  store?: SpendStore;
}

/** The metadata key a scope's value is read from. */
const METADATA_KEY: Record<BudgetScope, string> = {
  trace: 'trace_id',
  agent: 'agent_id',
  workflow: 'workflow_name',
  key: 'api_key_id',
};

/**
 * Spend per budget: a call is admitted while every budget it falls under has room, and its cost is charged when its
 * record is made (a stream's at its end). Counted in a `SpendStore`: this process's memory (bounded: keyed by
 * caller-chosen values, the least recently charged beyond `maxTracked` are forgotten), or Redis for replicas.
 */
export class BudgetLedger {
  readonly rules: readonly BudgetRule[];
  readonly #store: SpendStore;

  constructor(options: BudgetOptions) {
    this.rules = [
      ...(options.perTrace !== undefined
        ? [{ scope: 'trace', usd: options.perTrace, window: 'lifetime' } as const]
        : []),
      ...(options.rules ?? []),
    ];
    for (const rule of this.rules) {
      const amount = rule.usd ?? rule.tokens;
      if (typeof amount !== 'number' || !(amount >= 0) || !Number.isFinite(amount))
        throw new TypeError(
          `A budget must be a non-negative number of dollars or tokens (got ${amount} for ${rule.scope}).`,
        );
    }
    this.#store = options.store ?? new MemorySpendStore(options.maxTracked);
  }

  /**
   * Throws `BudgetExceededError` (402, insufficient_quota) when a dollar budget this call falls under is spent, and
   * `LimitExceededError` (429, with the wait) when a token limit is.
   */
  async admit(metadata: Readonly<Record<string, string>> | undefined, now = new Date()): Promise<void> {
    for (const rule of this.rules) {
      const slot = slotOf(rule, metadata, now);
      if (slot === undefined) continue;
      const spent = await this.#store.spent(slot.key);
      if (rule.tokens !== undefined) {
        if (spent >= rule.tokens)
          throw new LimitExceededError(
            `Limit reached: the ${rule.scope} "${slot.value}" has used its ${rule.tokens} tokens per ${rule.window}.`,
            untilNextWindow(rule.window, now),
          );
      } else if (spent >= rule.usd) throw new BudgetExceededError(describe(rule, slot.value), rule, spent);
    }
  }

  /** Adds a finished call's cost (and tokens, for token limits) to every budget it falls under. */
  async charge(
    metadata: Readonly<Record<string, string>> | undefined,
    usd: number | null,
    tokens = 0,
    now = new Date(),
  ): Promise<void> {
    for (const rule of this.rules) {
      const amount = rule.tokens !== undefined ? tokens : (usd ?? 0);
      if (!amount) continue;
      const slot = slotOf(rule, metadata, now);
      if (slot !== undefined) await this.#store.add(slot.key, amount, ttlOf(rule.window));
    }
  }

  /** Dollars spent so far under one rule for one value (a trace id, an agent…). */
  spent(rule: BudgetRule, value: string, now = new Date()): Promise<number> {
    return this.#store.spent(slotKey(rule, value, now));
  }
}

/** How long a slot must be kept: past its window (a day, a month), or 90 days for a trace's lifetime. */
function ttlOf(window: BudgetWindow): number {
  const day = 86_400_000;
  if (window === 'minute') return 120_000;
  return window === 'day' ? 2 * day : window === 'month' ? 32 * day : 90 * day;
}

/** Milliseconds until the window turns (a minute's); a day's or a month's, roughly, and a lifetime's never. */
function untilNextWindow(window: BudgetWindow, now: Date): number {
  if (window === 'minute') return 60_000 - (now.getTime() % 60_000);
  if (window === 'day') return 86_400_000 - (now.getTime() % 86_400_000);
  return 3_600_000;
}

function slotOf(
  rule: BudgetRule,
  metadata: Readonly<Record<string, string>> | undefined,
  now: Date,
): { key: string; value: string } | undefined {
  const value = metadata?.[METADATA_KEY[rule.scope]];
  return value === undefined ? undefined : { key: slotKey(rule, value, now), value };
}

function slotKey(rule: BudgetRule, value: string, now: Date): string {
  const lengths = { minute: 16, day: 10, month: 7, lifetime: 0 } as const;
  const period = now.toISOString().slice(0, lengths[rule.window]);
  const unit = rule.tokens !== undefined ? `${rule.tokens}tok` : `${rule.usd}usd`;
  return `${rule.scope}\u0000${rule.window}\u0000${unit}\u0000${period}\u0000${value}`;
}

function describe(rule: BudgetRule & { usd: number }, value: string): string {
  const per = rule.window === 'lifetime' ? '' : ` per ${rule.window}`;
  return `the ${rule.scope} "${value}" has spent its budget of $${rule.usd}${per}`;
}
