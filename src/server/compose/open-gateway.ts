import type { BudgetRule } from '../../budgets/budget-slots.ts';
import { MemorySpendStore } from '../../budgets/memory-spend-store.ts';
import type { SpendStore } from '../../budgets/spend-store.ts';
import { createGateway, type Gateway } from '../../gateway.ts';
import { redactSecrets } from '../../internal/redact.ts';
import type { RecordOptions } from '../../records/call-recorder.ts';
import { DEFAULT_FLUSH_INTERVAL_MS } from '../../records/record-queue-options.ts';
import { openResponseCache } from '../open-response-cache.ts';
import { createServerMetrics, type ServerMetrics } from '../server-metrics.ts';
import { storageErrorOf } from '../shared-state.ts';
import type { ServeOptions } from '../start-server.ts';
import type { ServerCounters } from './open-counters.ts';
import type { ServerEngines } from './open-engines.ts';
import type { ServerStores } from './open-stores.ts';
import { messageOf, type ServerLog } from './server-log.ts';
import type { Teardown } from './teardown.ts';

/** The gateway every route calls, and the metrics it feeds (`metrics`). */
export interface ServerGateway {
  gateway: Gateway;
  metrics: ServerMetrics | undefined;
  /** Where budgets are counted (keys' own budgets and in-flight limits too), and the gateway's `key` rules. */
  spend: SpendStore;
  keyBudgetRules: readonly BudgetRule[];
}

/**
 * The gateway over the stores and engines: records to the store (journaled), budgets where the counters are (Redis,
 * the primary of `serve --workers`) and the response cache in Redis when there is one. From here on the gateway
 * closes the record sinks and the cache store itself (flushing first).
 */
export async function openGateway(
  options: ServeOptions,
  opened: {
    stores: ServerStores;
    engines: ServerEngines;
    counters: ServerCounters;
    /** Other processes write the same records (a worker of `serve --workers`, a replica on PostgreSQL). */
    shared: boolean;
  },
  log: ServerLog,
  teardown: Teardown,
): Promise<ServerGateway> {
  const { stores, engines, counters } = opened;
  const catalogId = (name: string) => gateway.catalog.find(name)?.id;
  const metrics = options.metrics ? await createServerMetrics(() => gateway.recordStats, catalogId) : undefined;
  const { redis } = engines;
  // Always a budget stage: a key may carry budgets of its own (`limits`) even when the server sets none.
  const configured = options.gateway?.budgets ?? {};
  const spend: SpendStore = configured.store ?? counters.spend ?? new MemorySpendStore(configured.maxTracked);
  const budgets = { ...configured, store: spend };
  const cache = options.cache ? openResponseCache(options.cache, redis, stores.dataDir) : undefined;
  const cacheStore = cache ? cache.store : undefined;
  if (cacheStore) teardown.add('response cache', cacheStore, (store) => store.close?.());
  const gateway: Gateway = createGateway({
    ...options.gateway,
    budgets,
    ...(cache !== undefined ? { cache } : {}),
    mock: options.mock ?? false,
    deployments: stores.deployments,
    // Annotations and experiments beside the records, in the same database.
    stores: stores.database,
    records: {
      ...recordOptions(stores, engines, log, metrics, () => gateway.recordStats),
      ...(opened.shared ? { sharedWithinMs: RECORDS_SHARED_WITHIN_MS } : {}),
    },
    // Once per model: a deprecated model in use is said in the log, not in every request's line.
    onModelDeprecated: (deprecation) => {
      log.warn('model deprecated', deprecation);
      options.gateway?.onModelDeprecated?.(deprecation);
    },
  });
  teardown.handOver([stores.records, stores.journal, cacheStore], 'gateway', gateway, (opened) => opened.close());
  log.atEnd(() => {
    const stats = gateway.recordStats;
    const counts = {
      records_written: stats.written,
      records_dropped: stats.dropped,
      records_failed: stats.failed,
      records_build_failed: stats.build_failed,
    };
    (stats.dropped + stats.failed > 0 ? log.warn : log.info)('stopped', counts);
  });
  const keyBudgetRules = (configured.rules ?? []).filter((rule) => rule.scope === 'key');
  return { gateway, metrics, spend, keyBudgetRules };
}

/**
 * Another process's record is in the shared store within this long of its call's end: its queue's flush interval
 * and the write itself (half a second allowed for it).
 */
const RECORDS_SHARED_WITHIN_MS = DEFAULT_FLUSH_INTERVAL_MS + 500;

/**
 * node:sqlite writes synchronously: record batches of 32 (~0.5 ms each) instead of 200 (2–4 ms) keep a flush from
 * holding up the requests that arrive meanwhile (p99 at one connection). Lost records are loud: a warning the first
 * time, then at most once a minute (the queue's pace), with the counts.
 */
function recordOptions(
  stores: ServerStores,
  engines: ServerEngines,
  log: ServerLog,
  metrics: ServerMetrics | undefined,
  recordStats: () => Gateway['recordStats'],
): RecordOptions {
  return {
    sinks: [stores.records, ...(metrics ? [metrics.sink] : [])],
    ...(stores.journal ? { journal: stores.journal } : {}),
    batchSize: 32,
    onError: (error: unknown) => {
      const outage = storageErrorOf(error);
      if (outage) engines.watch.down(outage.component, outage.cause ?? outage);
      const reason = redactSecrets(messageOf(error), []);
      log.warn('call records could not be stored', { error: reason, records: recordStats() });
    },
    onDropped: () => log.warn('call records dropped: the record queue is full', { records: recordStats() }),
  };
}
