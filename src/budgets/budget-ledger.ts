import { BudgetExceededError } from '../errors.ts';
import { MemorySpendStore, type SpendStore } from './spend-store.ts';

/** What a budget counts spend by: one trace, one agent, one workflow name, or one API key of `serve`. */
export type BudgetScope = 'trace' | 'agent' | 'workflow' | 'key';
/** The window spend is summed over: a calendar day or month (UTC), or the whole life of the scope's value. */
export type BudgetWindow = 'day' | 'month' | 'lifetime';

export interface BudgetRule {
  scope: BudgetScope;
  /** Dollars the scope's value may spend in the window; a call once it is reached gets `BudgetExceededError`. */
  usd: number;
  window: BudgetWindow;
}

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
      if (!(rule.usd >= 0) || !Number.isFinite(rule.usd))
        throw new TypeError(`A budget must be a non-negative number of dollars (got ${rule.usd} for ${rule.scope}).`);
    }
    this.#store = options.store ?? new MemorySpendStore(options.maxTracked);
  }

  /** Throws `BudgetExceededError` (402, insufficient_quota) when a budget this call falls under is spent. */
  async admit(metadata: Readonly<Record<string, string>> | undefined, now = new Date()): Promise<void> {
    for (const rule of this.rules) {
      const slot = slotOf(rule, metadata, now);
      if (slot === undefined) continue;
      const spent = await this.#store.spent(slot.key);
      if (spent >= rule.usd) throw new BudgetExceededError(describe(rule, slot.value), rule, spent);
    }
  }

  /** Adds a finished call's cost to every budget it falls under. */
  async charge(
    metadata: Readonly<Record<string, string>> | undefined,
    usd: number | null,
    now = new Date(),
  ): Promise<void> {
    if (!usd) return;
    for (const rule of this.rules) {
      const slot = slotOf(rule, metadata, now);
      if (slot !== undefined) await this.#store.add(slot.key, usd, ttlOf(rule.window));
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
  return window === 'day' ? 2 * day : window === 'month' ? 32 * day : 90 * day;
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
  const period =
    rule.window === 'day'
      ? now.toISOString().slice(0, 10)
      : rule.window === 'month'
        ? now.toISOString().slice(0, 7)
        : '';
  return `${rule.scope}\u0000${rule.window}\u0000${rule.usd}\u0000${period}\u0000${value}`;
}

function describe(rule: BudgetRule, value: string): string {
  const per = rule.window === 'lifetime' ? '' : ` per ${rule.window}`;
  return `the ${rule.scope} "${value}" has spent its budget of $${rule.usd}${per}`;
}
