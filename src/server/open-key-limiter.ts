import type { KeyLimits } from '../access/key-limits.ts';
import type { BudgetRule } from '../budgets/budget-slots.ts';
import { MemorySpendStore } from '../budgets/memory-spend-store.ts';
import { RedisTokenBuckets } from '../budgets/redis-counters.ts';
import type { SwitchyardHandlerOptions } from './handler.ts';
import { DEFAULT_MAX_CONCURRENT_PER_KEY, KeyConcurrency } from './key-concurrency.ts';
import { KeyLimiter } from './key-limiter.ts';
import { KeyRateLimit } from './key-rate-limit.ts';

/**
 * The handler's key limits over where they are counted: this process, Redis shared by replicas, or the primary of
 * `serve --workers` (`rateBuckets`, `inFlightStore`); the server's flags are the defaults of keys without their own.
 */
export function openKeyLimiter(options: SwitchyardHandlerOptions): KeyLimiter {
  const concurrency = new KeyConcurrency(
    options.maxConcurrentPerKey ?? DEFAULT_MAX_CONCURRENT_PER_KEY,
    options.inFlightStore,
  );
  const rate = new KeyRateLimit({
    shared: options.rateBuckets ?? (options.redis ? new RedisTokenBuckets(options.redis) : undefined),
    onStoreError: options.rateLimitOnStoreError,
    onStorageError: options.onStorageError,
  });
  const keyRules = options.keyBudgetRules ?? [];
  return new KeyLimiter({
    defaults: serverDefaults(options, keyRules, concurrency.limit),
    keyRules,
    rate,
    concurrency,
    spend: options.spendStore ?? new MemorySpendStore(),
  });
}

/** The server's limits for keys without their own: its flags, and the gateway's `key` budget rules. */
function serverDefaults(
  options: SwitchyardHandlerOptions,
  keyRules: readonly BudgetRule[],
  maxInFlight: number,
): KeyLimits {
  const tokens = keyRules.find((rule) => rule.tokens !== undefined && rule.window === 'minute')?.tokens;
  const budgets = keyRules.flatMap((rule) =>
    rule.usd !== undefined && rule.window !== 'minute' ? [`${rule.usd}/${rule.window}`] : [],
  );
  return {
    ...(options.requestsPerMinutePerKey !== undefined ? { requests_per_minute: options.requestsPerMinutePerKey } : {}),
    ...(tokens !== undefined ? { tokens_per_minute: tokens } : {}),
    max_in_flight: maxInFlight,
    ...(budgets.length > 0 ? { budgets } : {}),
  };
}
