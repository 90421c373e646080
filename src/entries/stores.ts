/**
 * `switchyard-llm/stores`: the store and sink classes, and the interfaces to write your own. Most of them need
 * Node.js (SQLite, files, PostgreSQL, Redis), so they stay off the main entry; `createGateway` makes the memory
 * defaults by itself.
 *
 * ```ts
 * import { createGateway } from 'switchyard-llm';
 * import { SqliteSink } from 'switchyard-llm/stores';
 *
 * const gateway = createGateway({ records: { sinks: [new SqliteSink('calls.db')] } });
 * ```
 * @module
 */

// Annotations.
export type { AnnotationStore, NormalizedAnnotationQuery, StoredAnnotation } from '../annotations/index.ts';
export { MemoryAnnotationStore, PostgresAnnotationStore, SqliteAnnotationStore } from '../annotations/index.ts';
export { StoredAnnotations } from '../annotations/stored-annotations.ts';
// The response cache.
export { type MemoryCacheOptions, MemoryCacheStore, type ResponseCacheStore } from '../cache/cache-store.ts';
export { RedisCacheStore } from '../cache/redis-cache-store.ts';
export { SqliteCacheStore } from '../cache/sqlite-cache-store.ts';
export { StoredCache } from '../cache/stored-cache.ts';
// Deployments (createDeploymentStore, on the main entry, picks one of these from a location).
export {
  FileDeploymentStore,
  MemoryDeploymentStore,
  RemoteDeploymentStore,
  type RemoteDeploymentStoreOptions,
} from '../deployments/index.ts';
export { StoredDeployments } from '../deployments/stored-deployments.ts';
// Experiments.
export type { ExperimentListQuery, ExperimentStore } from '../experiments/index.ts';
export { MemoryExperimentStore, PostgresExperimentStore, SqliteExperimentStore } from '../experiments/index.ts';
export { StoredExperiments } from '../experiments/stored-experiments.ts';
export type { PostgresPool, PostgresPoolConfig } from '../internal/postgres-pool.ts';
// Call records: the sinks, and the journal that keeps records across a crash.
export {
  CallbackSink,
  JsonlFileSink,
  MemorySink,
  type MemorySinkOptions,
  OpenTelemetrySink,
  type OpenTelemetrySinkOptions,
  PostgresSink,
  RecordJournal,
  type RecordJournalOptions,
  type RecordSink,
  RecordsRefusedError,
  SqliteSink,
} from '../records/index.ts';
export { StoredCalls } from '../records/stored-calls.ts';
// The one storage layer: every store of one database opened by one factory, each a class over a storage engine
// (memory, SQLite, PostgreSQL); the memory and SQLite classes above are these on their engine.
export type { StorageEngine } from '../storage/engine.ts';
export { openStores, type Stores, type StoresSource } from '../stores/open-stores.ts';
