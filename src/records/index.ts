/** Call records: one per completion, queued off the request path, written to sinks, queried through a call store. */
export { buildCallRecord, type CallRecordInput, recordErrorFrom } from './build-record.ts';
export {
  type CallRecord,
  type CallStatus,
  REDACTED,
  type RecordError,
  type RecordOutput,
  type RecordToolCall,
  type RecordUsage,
  redactRecord,
} from './call-record.ts';
export {
  type AgentSummary,
  type AgentTotals,
  type CallPage,
  type CallStore,
  type CallTiming,
  type DailyCostQuery,
  type DailyCostRow,
  isCallStore,
  type ListCallsQuery,
  type TraceSummary,
  type WorkflowSummary,
  type WorkflowTimeline,
} from './call-store.ts';
export { decodeCursor, encodeCursor } from './call-store-queries.ts';
export {
  type BilledUsage,
  type CostBreakdown,
  computeCost,
  computeTotalCost,
  costBreakdown,
  type LongContextPricing,
  normalizeUsage,
  roundUsd,
  sumUsage,
  type TokenPricing,
  totalCostBreakdown,
  type UsageLike,
  ZERO_USAGE,
} from './compute-cost.ts';
export { RecordQueue, type RecordQueueOptions, type RecordQueueStats } from './record-queue.ts';
export { DEFAULT_MAX_TEXT_LENGTH } from './record-text.ts';
export { type RecordSink, RecordsRefusedError } from './sink.ts';
export { CallbackSink } from './sinks/callback-sink.ts';
export { JsonlFileSink } from './sinks/jsonl-file-sink.ts';
export { MemorySink, type MemorySinkOptions } from './sinks/memory-sink.ts';
export {
  OpenTelemetrySink,
  type OpenTelemetrySinkOptions,
  type OtelAttributeValue,
  type OtelSpan,
  type OtelTracer,
} from './sinks/opentelemetry-sink.ts';
export { PostgresSink } from './sinks/postgres-sink.ts';
export { SqliteSink } from './sinks/sqlite-sink.ts';
export { StreamRecorder, type StreamSummary } from './stream-recorder.ts';
export { uuidv7, uuidv7Timestamp } from './uuidv7.ts';
