import type { CallQuery, CallQueryOptions, CallQueryResult } from './call-query.ts';
import type { AttributionField, CallRecord, Dialect, RecordUsage } from './call-record.ts';

/**
 * Read access to stored call records: `gateway.calls`. Implemented by `StoredCalls` on every engine (`MemorySink`,
 * `SqliteSink`, `PostgresSink`).
 */
export interface CallStore {
  /**
   * Calls newest first, filtered, one page at a time (at most `limit` calls, and 4 MB of records past the first),
   * within `options.scope` (a reader's, ANDed to the query's filters; its key list is not held to `api_key_ids`'s
   * 10,000).
   */
  list(query?: ListCallsQuery, options?: CallQueryOptions): Promise<CallPage>;
  /**
   * `list` as each record's JSON text, read from the store a batch at a time as `records` is iterated: what
   * `GET /v1/calls` streams, never parsing a record nor holding a page whole. Optional for other stores: the server
   * then serialises `list`.
   */
  listJson?(query?: ListCallsQuery, options?: CallQueryOptions): Promise<CallTextPage>;
  /**
   * One call by id; `null` when the store does not have it. Optional for other stores: a Responses API call that
   * continues an earlier one (`previous_response_id`) needs it.
   */
  get?(id: string): Promise<CallRecord | null>;
  /** Every call of one trace, with totals per agent; `null` when the trace has no calls. */
  workflow(traceId: string): Promise<WorkflowSummary | null>;
  /** Cost per UTC day and workflow over the last `days` days, oldest day first. */
  dailyCost(query?: DailyCostQuery): Promise<DailyCostRow[]>;
  /** Totals per agent, highest cost first. */
  agents(): Promise<AgentSummary[]>;
  /**
   * The traces of the most recent traced calls (at most `RECENT_TRACE_CALLS` looked at), newest first, at most
   * `limit`. Reads no record contents. Optional for other stores: the workflow page then falls back to `list`.
   */
  recentTraces?(limit: number): Promise<TraceSummary[]>;
  /**
   * `workflow()` without the record contents: each call's timing, cost and status, the first `limit` calls, with
   * the totals of them all. What the workflow page draws, however large the records. Optional, as `recentTraces`.
   */
  workflowTimeline?(traceId: string, limit: number): Promise<WorkflowTimeline | null>;
  /**
   * The structured query (filters, groups, aggregates, order, limit; see docs/observability.md) over the calls the
   * `scope` allows. A 400 (`InvalidRequestError`) names a wrong part. Optional for other stores.
   */
  queryCalls?(query: CallQuery, options?: CallQueryOptions): Promise<CallQueryResult>;
  /**
   * One call by id, only when its record's JSON is at most `maxBytes` (UTF-8): `'too_large'` when it is larger,
   * read without reading the record; `null` when there is no such call. Optional for other stores.
   */
  getBounded?(id: string, maxBytes: number): Promise<CallRecord | 'too_large' | null>;
}

/** Traced calls the trace picker looks at, newest first. */
export const RECENT_TRACE_CALLS = 500;

export interface TraceSummary {
  trace_id: string;
  /** That of the trace's newest call. */
  workflow_name: string | null;
  /** Start of the trace's newest call. */
  created_at: string;
}

/** What a workflow summary needs of a call: no contents. */
export interface CallTiming
  extends Pick<
    CallRecord,
    | 'id'
    | 'created_at'
    | 'dialect'
    | 'agent_id'
    | 'workflow_name'
    | 'model'
    | 'requested_model'
    | 'status'
    | 'cost_usd'
    | 'latency_ms'
  > {
  usage: Pick<RecordUsage, 'prompt_tokens' | 'completion_tokens'>;
}

/** A workflow summary over calls of some shape (records, or their timings). */
export type SummaryOf<Call> = Omit<WorkflowSummary, 'calls'> & { calls: Call[] };

/** A workflow's totals with the first calls' timings: `calls` holds at most the limit asked for, `call_count` all. */
export interface WorkflowTimeline extends Omit<WorkflowSummary, 'calls'> {
  calls: CallTiming[];
  call_count: number;
}

/** Whether a sink also answers queries, so the gateway can expose it as `gateway.calls`. */
export function isCallStore(value: unknown): value is CallStore {
  const store = value as Partial<Record<keyof CallStore, unknown>> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.list === 'function' &&
    typeof store.workflow === 'function' &&
    typeof store.dailyCost === 'function' &&
    typeof store.agents === 'function'
  );
}

/** Each attribution field (`agent_id`, `trace_id`, `workflow_name`) given filters on its exact value. */
export interface ListCallsQuery extends Partial<Record<AttributionField, string>> {
  /** Calls made with one of these `serve` API keys (their ids, as `metadata.api_key_id`); at most 10,000. */
  api_key_ids?: readonly string[];
  /** Calls of one API: `chat`, `responses`, `messages` or `embeddings`. */
  dialect?: Dialect;
  /** Calls created at or after this instant. */
  since?: string | Date;
  /** Calls created before this instant. */
  until?: string | Date;
  /**
   * Page size: default 50, at most 1000. A page of large records holds fewer: past its first call, it stops before
   * 4 MB of records (`MAX_PAGE_BYTES`), and `next_cursor` goes on from there.
   */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string | null;
}

export interface CallPage {
  data: CallRecord[];
  /** Pass as `cursor` for the next (older) page; `null` on the last page. */
  next_cursor: string | null;
}

/** A page of `listJson`: the records' JSON, read as iterated (once), and the cursor of the next page. */
export interface CallTextPage {
  /** Each record's JSON: text, or its UTF-8 bytes as the store keeps them. */
  records: AsyncIterable<string | Uint8Array>;
  next_cursor: string | null;
}

export interface AgentTotals {
  agent_id: string | null;
  calls: number;
  /** The cost of the calls whose price is known. */
  cost_usd: number;
  /** Calls left out of `cost_usd`: their price is not known. */
  unpriced_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface WorkflowSummary {
  trace_id: string;
  /** The first `workflow_name` the trace's calls carry. */
  workflow_name: string | null;
  /** Oldest first. */
  calls: CallRecord[];
  /** In order of each agent's first call. */
  agents: AgentTotals[];
  /** The cost of the calls whose price is known. */
  cost_usd: number;
  /** Calls left out of `cost_usd`: their price is not known. */
  unpriced_calls: number;
  /** From the start of the first call to the end of the last one to finish. */
  duration_ms: number;
}

export interface DailyCostQuery {
  workflow_name?: string;
  /** Days including today (UTC): default 30. */
  days?: number;
  /** The instant whose UTC day is the last of the window (default now). */
  now?: Date;
}

export interface DailyCostRow {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  workflow_name: string | null;
  calls: number;
  /** The cost of the calls whose price is known. */
  cost_usd: number;
  /** Calls left out of `cost_usd`: their price is not known. */
  unpriced_calls: number;
}

export interface AgentSummary {
  agent_id: string | null;
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  /** The cost of the calls whose price is known. */
  cost_usd: number;
  /** Calls left out of `cost_usd`: their price is not known. */
  unpriced_calls: number;
  last_call_at: string;
}
