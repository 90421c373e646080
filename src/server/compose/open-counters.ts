import type { SpendStore } from '../../budgets/spend-store.ts';
import type { TokenBuckets } from '../../budgets/token-buckets.ts';
import type { ClusterWorker } from '../cluster/worker-role.ts';
import type { ServerEngines } from './open-engines.ts';

/**
 * Where the key limits and budgets are counted, when not in this process alone: one choice for every counter. Each
 * is absent when this process counts it itself (the handler's and the gateway's own memory stores).
 */
export interface ServerCounters {
  /** Requests per minute per key. */
  buckets: TokenBuckets | undefined;
  /** Budgets and tokens a minute (the gateway's budget stage). */
  spend: SpendStore | undefined;
  /** Each key's requests in flight. */
  inFlight: SpendStore | undefined;
}

/**
 * Redis when there is one, shared by every replica (and every worker) as before: rates and budgets there, calls in
 * flight per process. Else, in a worker of `serve --workers`, the primary's counters, all of them, so the workers
 * count as one server. Else this process.
 */
export async function openCounters(engines: ServerEngines, worker: ClusterWorker | undefined): Promise<ServerCounters> {
  if (engines.redis) {
    const { RedisSpendStore, RedisTokenBuckets } = await import('../../budgets/redis-counters.ts');
    return {
      buckets: new RedisTokenBuckets(engines.redis),
      spend: new RedisSpendStore(engines.redis),
      inFlight: undefined,
    };
  }
  if (worker) return { buckets: worker.counters, spend: worker.counters, inFlight: worker.counters };
  return { buckets: undefined, spend: undefined, inFlight: undefined };
}
