import { BudgetExceededError, LimitExceededError, StorageUnavailableError, SwitchyardError } from '../errors.ts';
import type { CompletionWarning } from '../types.ts';
import {
  type BudgetRule,
  type BudgetSubject,
  budgetsOf,
  poolOf,
  slotKey,
  ttlOf,
  untilNextWindow,
} from './budget-slots.ts';
import { CHARGE_RETRY_MS, giveBack, settleRetried } from './give-back.ts';
import { MemorySpendStore } from './memory-spend-store.ts';
import { type SlotCharge, type SlotHold, type SpendStore, SpendStoreFullError } from './spend-store.ts';

export type { BudgetRule, BudgetScope, BudgetSubject, BudgetWindow } from './budget-slots.ts';

/**
 * `createGateway({ budgets })`: `perTrace: 2.5` stops a runaway agent's next call once its trace has spent $2.50;
 * `rules` sets any others (per agent per day, per workflow per month…).
 */
export interface BudgetOptions {
  perTrace?: number;
  rules?: BudgetRule[];
  /**
   * Budgets counted at once in this process (default 100,000), of each kind: the traces, workflows and agents of
   * every tenant together, past which the least recently charged of the tenant with the most are forgotten (a tenant
   * flooding new traces forgets only its own); and every other (keys, agents of calls without a tenant), never
   * forgotten inside its window: past it, a call that needs one more is refused with a 503 `budgets_full`. A
   * `RedisSpendStore` has no such bound.
   */
  maxTracked?: number;
  /** Where spend is counted: this process (default), or a store shared by replicas (`RedisSpendStore`). */
  store?: SpendStore;
  /**
   * When the store cannot be reached while a call is admitted: `closed` (default) refuses the call with a 503
   * `StorageUnavailableError`; `open` lets it through unchecked, with a `budget_unchecked` warning.
   */
  onStoreError?: 'closed' | 'open';
}

/** The most a call may cost: dollars, and tokens for token limits. Held until the call is settled. */
export interface WorstCost {
  usd: number;
  tokens: number;
}

/** A call's reservation: what it holds of each budget it falls under, until `settle`. */
export interface BudgetHold {
  readonly id: string;
  readonly subject: BudgetSubject;
  readonly held: readonly SlotHold[];
}

/**
 * Spend per budget. A call reserves its worst cost before it is sent and is admitted only while every budget it falls
 * under has spent + held under its limit; once it is over, `settle` releases the reservation and charges what it
 * actually cost. Calls started together therefore overshoot a budget by one call at most. Counted in a `SpendStore`:
 * this process's memory (bounded by `maxTracked`, never forgetting a key's or an agent's budget inside its window), or
 * Redis.
 */
export class BudgetLedger {
  readonly rules: readonly BudgetRule[];
  readonly #store: SpendStore;
  readonly #open: boolean;

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
    if (options.onStoreError !== undefined && options.onStoreError !== 'closed' && options.onStoreError !== 'open')
      throw new TypeError(`budgets.onStoreError must be "closed" or "open" (got ${String(options.onStoreError)}).`);
    this.#open = options.onStoreError === 'open';
    this.#store = options.store ?? new MemorySpendStore(options.maxTracked);
  }

  /**
   * Admits a call and holds its worst cost (for `holdMs` at most) against every budget it falls under. Throws
   * `BudgetExceededError` (402, insufficient_quota) when a dollar budget is spent or held by calls in flight,
   * `LimitExceededError` (429, with the wait) when a token limit is, and `StorageUnavailableError` (503) when the
   * store fails (unless `onStoreError: 'open'`).
   */
  async reserve(
    subject: BudgetSubject,
    worst: WorstCost,
    options: { holdMs?: number; warn?: (warning: CompletionWarning) => void; now?: Date } = {},
  ): Promise<BudgetHold> {
    const now = options.now ?? this.now();
    const id = crypto.randomUUID();
    const entries: Array<{ rule: BudgetRule; value: string; hold: SlotHold }> = [];
    for (const { rule, value } of budgetsOf(this.rules, subject)) {
      const amount = rule.tokens !== undefined ? worst.tokens : worst.usd;
      const slot = slotKey(rule, value, now, subject.tenant);
      const limit = rule.tokens ?? rule.usd;
      // The same counter reached twice (a key named in metadata and in the lineage, two rules of one kind) is held
      // once, against the tighter limit.
      const same = entries.find((entry) => entry.hold.slot === slot);
      if (same) {
        if (limit < same.hold.limit) Object.assign(same, { rule, value, hold: { ...same.hold, limit } });
        continue;
      }
      entries.push({ rule, value, hold: { slot, pool: poolOf(rule, subject), limit, amount: finite(amount) } });
    }
    if (entries.length === 0) return { id, subject, held: [] };
    let refusal: Awaited<ReturnType<SpendStore['reserve']>>;
    const holds = entries.map((entry) => entry.hold);
    const holdMs = options.holdMs ?? 15 * 60_000;
    try {
      refusal = await this.#store.reserve(id, holds, holdMs);
    } catch (error) {
      const full = error instanceof SpendStoreFullError;
      // Failed as seen from here, maybe taken all the same (a timeout): given back, as this call holds nothing.
      if (!full) giveBack(this.#store, id, holds, holdMs);
      if (!this.#open) throw full ? budgetsFull(error) : this.#unavailable(error);
      options.warn?.({
        code: 'budget_unchecked',
        message: full
          ? `Budgets could not be checked (${error.message}); the call was let through unchecked.`
          : `The budget store (${this.#component}) could not be reached; the call was let through unchecked.`,
      });
      return { id, subject, held: [] };
    }
    if (refusal === undefined) return { id, subject, held: holds };
    const { rule, value } = entries[refusal.index]!;
    throw refusedBy(rule, value, refusal.spent, refusal.held, now);
  }

  /**
   * Ends a call's reservation: releases what it held and charges what it cost (dollars, and tokens for token limits)
   * to every budget it falls under, in the window it ended in. A failed call settles with what it paid.
   */
  settle(hold: BudgetHold, usd: number | null, tokens: number, now = this.now()): Promise<void> {
    const charges: SlotCharge[] = [];
    for (const { rule, value } of budgetsOf(this.rules, hold.subject)) {
      const amount = finite(rule.tokens !== undefined ? tokens : (usd ?? 0));
      if (!amount) continue;
      const slot = slotKey(rule, value, now, hold.subject.tenant);
      if (!charges.some((charge) => charge.slot === slot))
        charges.push({ slot, pool: poolOf(rule, hold.subject), amount, ttlMs: ttlOf(rule.window) });
    }
    if (hold.held.length === 0 && charges.length === 0) return Promise.resolve();
    // Called before any `await`: in memory the release and the charge are made before the caller's next call. A
    // store that fails is asked again, with the same charges (the window the call ended in), for a few minutes.
    return settleRetried(this.#store, hold.id, hold.held, charges, CHARGE_RETRY_MS);
  }

  /**
   * Dollars (or tokens) spent so far under one rule for one value (a trace id, an agent…), holds not counted; a
   * trace's or a workflow's of one tenant (`tenantOf`), or of calls without a key when `tenant` is not given.
   */
  spent(rule: BudgetRule, value: string, now = this.now(), tenant?: string): Promise<number> {
    return this.#store.spent(slotKey(rule, value, now, tenant));
  }

  /** The time windows are read in: the store's clock when it has one shared by every process (Redis's). */
  now(): Date {
    return this.#store.now?.() ?? new Date();
  }

  get #component(): string {
    return this.#store.component ?? 'budget store';
  }

  #unavailable(error: unknown): StorageUnavailableError {
    const reason = error instanceof Error ? error.message : String(error);
    return new StorageUnavailableError(
      this.#component,
      `Budgets cannot be checked: the budget store (${this.#component}) failed (${reason}). The call was not sent.`,
      error,
    );
  }
}

/** A 503 for a call whose budgets this process cannot count without forgetting one inside its window. */
function budgetsFull(error: SpendStoreFullError): SwitchyardError {
  return new SwitchyardError(`Budgets cannot be checked: ${error.message} The call was not sent.`, {
    status: 503,
    type: 'server_error',
    code: 'budgets_full',
  });
}

function refusedBy(rule: BudgetRule, value: string, spent: number, held: number, now: Date): Error {
  const inFlight = held > 0 ? `, with ${amountOf(rule, held)} held by calls in flight` : '';
  if (rule.tokens !== undefined) {
    // Holds end with their calls; a limit spent only ends with its window.
    const wait = spent >= rule.tokens ? untilNextWindow(rule.window, now) : 1_000;
    return new LimitExceededError(
      `Limit reached: the ${rule.scope} "${value}" has used its ${rule.tokens} tokens per ${rule.window}${inFlight}.`,
      wait,
    );
  }
  const per = rule.window === 'lifetime' ? '' : ` per ${rule.window}`;
  return new BudgetExceededError(
    `the ${rule.scope} "${value}" has spent its budget of $${rule.usd}${per}${inFlight}`,
    rule,
    spent,
  );
}

function amountOf(rule: BudgetRule, amount: number): string {
  return rule.tokens !== undefined ? `${Math.ceil(amount)} tokens` : `$${amount.toFixed(4)}`;
}

function finite(amount: number): number {
  return Number.isFinite(amount) && amount > 0 ? amount : 0;
}
