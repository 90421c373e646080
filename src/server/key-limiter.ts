import { randomUUID } from 'node:crypto';
import { effectiveLimits, type KeyLimits } from '../access/key-limits.ts';
import { withinTenant } from '../access/lineage.ts';
import { type BudgetRule, budgetsOf, slotKey } from '../budgets/budget-slots.ts';
import { giveBack } from '../budgets/give-back.ts';
import type { SlotHold, SpendStore } from '../budgets/spend-store.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import {
  heldIn,
  IN_FLIGHT_HOLD_MS,
  inFlightHold,
  inFlightRefusal,
  inFlightSlot,
  type KeyConcurrency,
  once,
} from './key-concurrency.ts';
import type { KeyRateLimit } from './key-rate-limit.ts';

export interface KeyLimiterOptions {
  /** The server's limits for a key that sets none of its own (`serve --rate-limit`, `--budget key:…`…). */
  defaults: KeyLimits;
  /** The gateway's `key` budget rules, whose counters `usage` reads for a key without its own budget of a kind. */
  keyRules: readonly BudgetRule[];
  rate: KeyRateLimit;
  /** The server's default in-flight limit, for keys without their own. */
  concurrency: KeyConcurrency;
  /** Where the gateway counts budgets (Redis when replicas share it): own in-flight limits are held there too. */
  spend: SpendStore | undefined;
}

/** What a key has used of its limits in the current windows (`GET /v1/keys`). */
export interface KeyUsage {
  requests_per_minute?: { limit: number; remaining: number };
  tokens_per_minute?: { limit: number; used: number };
  in_flight: { limit: number; current: number };
  budgets?: Array<{ budget: string; window: string; spent_usd: number }>;
}

/**
 * The request limits of keys (rate and in flight), each key's own or the server's: a call takes from its key's and
 * from each ancestor's within its tenant (`withinTenant`), so a child never widens what its parent has. Tokens a
 * minute and dollar budgets are the budget stage's (`CallAccess.keyLimits`); `usage` reads their counters here.
 */
export class KeyLimiter {
  readonly defaults: KeyLimits;
  readonly #options: KeyLimiterOptions;

  constructor(options: KeyLimiterOptions) {
    this.defaults = options.defaults;
    this.#options = options;
  }

  /** One request from the rate of the key and of each key it was minted under (within its tenant). */
  async takeRequest(key: ApiKeyInfo): Promise<void> {
    const rates = lineageOf(key).flatMap(({ id, own, whose }) => {
      const perMinute = own?.requests_per_minute ?? this.defaults.requests_per_minute;
      return perMinute === undefined ? [] : [{ id, perMinute, whose }];
    });
    const { rate } = this.#options;
    // Several rates: looked at before any is taken from, so a request one of them refuses takes nothing from the
    // others (a parent's refusal spending its child's rate). The take refuses an empty bucket without taking; one
    // that refilled meanwhile is taken from once, there.
    const taken = new Set<string>();
    if (rates.length > 1)
      for (const { id, perMinute, whose } of rates)
        if ((await rate.remaining(id, perMinute)) < 1) {
          await rate.take(id, perMinute, whose);
          taken.add(id);
        }
    for (const { id, perMinute, whose } of rates) if (!taken.has(id)) await rate.take(id, perMinute, whose);
  }

  /**
   * A slot in flight from the key and from each key that minted it within its tenant, as `takeRequest` takes from
   * their rates: the server's slot (per process, or per host with `--workers`) for each without a limit of its own,
   * and one of each own `max_in_flight`, held in the shared store (every replica's count). The function returned
   * gives them back, once.
   */
  async acquire(key: ApiKeyInfo): Promise<() => void> {
    const lineage = lineageOf(key);
    const shared = lineage.filter((entry) => entry.own?.max_in_flight !== undefined);
    // The server's slot of each key without its own limit, all or none, in one take (one round trip to a shared store).
    const defaulted = lineage.filter((entry) => entry.own?.max_in_flight === undefined);
    const local = defaulted.length > 0 ? await this.#options.concurrency.acquireAll(defaulted) : undefined;
    if (shared.length === 0) return local ?? (() => undefined);
    const holds: SlotHold[] = shared.map(({ id, own }) => inFlightHold(id, own!.max_in_flight!));
    const id = randomUUID();
    const store = this.#store();
    let refusal: Awaited<ReturnType<typeof store.reserve>>;
    try {
      refusal = await store.reserve(id, holds, IN_FLIGHT_HOLD_MS);
    } catch (error) {
      local?.();
      // Failed as seen from here, maybe taken all the same (a timeout): given back.
      giveBack(store, id, holds, IN_FLIGHT_HOLD_MS);
      throw error;
    }
    if (refusal) {
      local?.();
      throw inFlightRefusal(shared[refusal.index]!.whose, holds[refusal.index]!.limit);
    }
    return once(() => {
      local?.();
      giveBack(store, id, holds, IN_FLIGHT_HOLD_MS);
    });
  }

  /** The key's limits (its own, else the server's) and what it has used of each in the current windows. */
  async usage(
    key: ApiKeyInfo,
    now = this.#options.spend?.now?.() ?? new Date(),
  ): Promise<{ limits: KeyLimits; usage: KeyUsage }> {
    const limits = effectiveLimits(key.limits, this.defaults);
    const own = key.limits?.max_in_flight;
    const usage: KeyUsage = {
      in_flight: {
        limit: limits.max_in_flight ?? this.#options.concurrency.limit,
        current:
          own === undefined
            ? await this.#options.concurrency.current(key.id)
            : await heldIn(this.#store(), inFlightSlot(key.id)),
      },
    };
    if (limits.requests_per_minute !== undefined)
      usage.requests_per_minute = {
        limit: limits.requests_per_minute,
        remaining: await this.#options.rate.remaining(key.id, limits.requests_per_minute),
      };
    const subject = { keys: [key.id], ...(key.limits ? { keyLimits: { [key.id]: key.limits } } : {}) };
    const budgets: NonNullable<KeyUsage['budgets']> = [];
    for (const { rule } of budgetsOf(this.#options.keyRules, subject)) {
      const spent = this.#options.spend ? await this.#options.spend.spent(slotKey(rule, key.id, now)) : 0;
      if (rule.tokens !== undefined) usage.tokens_per_minute = { limit: rule.tokens, used: spent };
      else budgets.push({ budget: `${rule.usd}/${rule.window}`, window: rule.window, spent_usd: spent });
    }
    if (budgets.length > 0) usage.budgets = budgets;
    return { limits, usage };
  }

  #store(): SpendStore {
    const store = this.#options.spend;
    if (!store) throw new Error('KeyLimiter: own in-flight limits need the spend store');
    return store;
  }
}

/** The key then each key that minted it within its tenant, with its own limits and how a refusal names it. */
function lineageOf(key: ApiKeyInfo): Array<{ id: string; own: KeyLimits | undefined; whose: string }> {
  return withinTenant([key.id, ...key.ancestors], key.tenant).map((id) =>
    id === key.id
      ? { id, own: key.limits ?? undefined, whose: 'This API key' }
      : { id, own: key.ancestor_limits?.[id], whose: `The key ${id} that minted this one` },
  );
}
