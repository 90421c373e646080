/**
 * `switchyard-llm/records`: the shapes of what the gateway keeps and answers (call records and their queries,
 * annotations, experiments, costs), and the parts that build records outside a gateway (the queue, ids, costs).
 * A caller rarely names them: `gateway.calls`, `gateway.annotations` and `gateway.experiments` return them.
 *
 * ```ts
 * import { computeCost } from 'switchyard-llm/records';
 *
 * computeCost({ prompt_tokens: 1000, completion_tokens: 100 }, { input: 2.5, output: 10, cached_input: 1.25 });
 * ```
 * @module
 */

export * from '../annotations/caller-types.ts';
export * from '../experiments/caller-types.ts';
export type { Dialect, MediaRecord, SensitiveDataRecord } from '../records/call-record.ts';
export type { BilledUsage, UsageLike } from '../records/compute-cost.ts';
export type {
  AgentSummary,
  CallPage,
  CallQuery,
  CallQueryOptions,
  CallQueryResult,
  CallQueryScope,
  CallTextPage,
  CallTiming,
  CostBreakdown,
  DailyCostQuery,
  DailyCostRow,
  ListCallsQuery,
  LongContextPricing,
  RecordError,
  RecordOutput,
  RecordQueueOptions,
  RecordQueueStats,
  RecordUsage,
  TokenPricing,
  TraceSummary,
  WorkflowSummary,
  WorkflowTimeline,
} from '../records/index.ts';
export {
  buildCallRecord,
  computeCost,
  computeTotalCost,
  MAX_PAGE_BYTES,
  RecordQueue,
} from '../records/index.ts';
