/** Call records: one per completion, queued off the request path, written to sinks, queried through a call store. */
export { buildCallRecord, recordErrorFrom, type CallRecordInput } from './build-record.ts';
export { DEFAULT_MAX_TEXT_LENGTH } from './record-text.ts';
export {
  REDACTED,
  redactRecord,
  type CallRecord,
  type CallStatus,
  type RecordError,
  type RecordOutput,
  type RecordToolCall,
  type RecordUsage,
} from './call-record.ts';
export { decodeCursor, encodeCursor } from './call-store-queries.ts';
export {
  isCallStore,
  type AgentSummary,
  type AgentTotals,
  type CallPage,
  type CallStore,
  type CallTiming,
  type DailyCostQuery,
  type DailyCostRow,
  type ListCallsQuery,
  type TraceSummary,
  type WorkflowSummary,
  type WorkflowTimeline,
} from './call-store.ts';
export {
  computeCost,
  computeTotalCost,
  normalizeUsage,
  roundUsd,
  sumUsage,
  type BilledUsage,
  type TokenPricing,
  type UsageLike,
} from './compute-cost.ts';
export { RecordQueue, type RecordQueueOptions, type RecordQueueStats } from './record-queue.ts';
export { RecordsRefusedError, type RecordSink } from './sink.ts';
export { CallbackSink } from './sinks/callback-sink.ts';
export { JsonlFileSink } from './sinks/jsonl-file-sink.ts';
export { MemorySink, type MemorySinkOptions } from './sinks/memory-sink.ts';
export { OpenTelemetrySink, type OpenTelemetrySinkOptions, type OtelAttributeValue, type OtelSpan, type OtelTracer } from './sinks/opentelemetry-sink.ts';
export { SqliteSink } from './sinks/sqlite-sink.ts';
export { StreamRecorder, type StreamSummary } from './stream-recorder.ts';
export { uuidv7, uuidv7Timestamp } from './uuidv7.ts';
