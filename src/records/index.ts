/** Call records: one per completion, queued off the request path, written to sinks, queried through a call store. */
export { buildCallRecord } from './build-record.ts';
export {
  type CallQuery,
  type CallQueryOptions,
  type CallQueryResult,
  type CallQueryScope,
  parseCallQuery,
} from './call-query.ts';
export { callQuerySchemas } from './call-query-schema.ts';
export {
  type CallRecord,
  type RecordError,
  type RecordOutput,
  type RecordUsage,
  redactRecord,
} from './call-record.ts';
export {
  type AgentSummary,
  type CallPage,
  type CallStore,
  type CallTextPage,
  type CallTiming,
  type DailyCostQuery,
  type DailyCostRow,
  isCallStore,
  type ListCallsQuery,
  type TraceSummary,
  type WorkflowSummary,
  type WorkflowTimeline,
} from './call-store.ts';
export { MAX_PAGE_BYTES } from './call-store-queries.ts';
export {
  type CostBreakdown,
  computeCost,
  computeTotalCost,
  type LongContextPricing,
  normalizeUsage,
  sumUsage,
  type TokenPricing,
  type UsageLike,
  ZERO_USAGE,
} from './compute-cost.ts';
export { type JournalSegment, RecordJournal, type RecordJournalOptions } from './record-journal.ts';
export { RecordQueue, type RecordQueueOptions, type RecordQueueStats } from './record-queue.ts';
export { type RecordSink, RecordsRefusedError } from './sink.ts';
export { CallbackSink } from './sinks/callback-sink.ts';
export { JsonlFileSink } from './sinks/jsonl-file-sink.ts';
export { MemorySink, type MemorySinkOptions } from './sinks/memory-sink.ts';
export {
  OpenTelemetrySink,
  type OpenTelemetrySinkOptions,
  type OtelAttributeValue,
  type OtelTracer,
} from './sinks/opentelemetry-sink.ts';
export { PostgresSink } from './sinks/postgres-sink.ts';
export { SqliteSink } from './sinks/sqlite-sink.ts';
export { StreamRecorder } from './stream-recorder.ts';
export { uuidv7, uuidv7Timestamp } from './uuidv7.ts';
