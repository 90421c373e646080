import { MemoryAnnotationStore } from '../../annotations/memory-annotation-store.ts';
import { MemoryExperimentStore } from '../../experiments/memory-experiment-store.ts';
import { utf8Length } from '../../internal/bytes.ts';
import { type CallQuery, type CallQueryOptions, type CallQueryResult, parseCallQuery } from '../call-query.ts';
import { queryRecords } from '../call-query-rows.ts';
import type { CallRecord } from '../call-record.ts';
import {
  type AgentSummary,
  type CallPage,
  type CallStore,
  type CallTextPage,
  type DailyCostQuery,
  type DailyCostRow,
  type ListCallsQuery,
  RECENT_TRACE_CALLS,
  type TraceSummary,
  type WorkflowSummary,
  type WorkflowTimeline,
} from '../call-store.ts';
import {
  compareAgentSummaries,
  compareDailyCostRows,
  dailyCostWindow,
  matchesListQuery,
  newestFirst,
  normalizeListQuery,
  recordTexts,
  sizedPage,
  summarizeWorkflow,
  timelineOf,
  tracesOf,
} from '../call-store-queries.ts';
import { roundUsd } from '../compute-cost.ts';
import type { RecordSink } from '../sink.ts';

export interface MemorySinkOptions {
  /** Records kept; past it the oldest written are forgotten (default 10_000). */
  capacity?: number | undefined;
}

/** Keeps the latest records in a ring buffer and answers the call-store queries from it: for tests and development. */
export class MemorySink implements RecordSink, CallStore {
  readonly capacity: number;
  readonly #ring: Array<CallRecord | undefined>;
  /** Index the next record is written at; the oldest record sits there once the ring is full. */
  #next = 0;
  #size = 0;
  #experiments: MemoryExperimentStore | undefined;

  constructor(options: MemorySinkOptions = {}) {
    this.capacity = Math.max(1, Math.floor(options.capacity ?? 10_000));
    this.#ring = new Array<CallRecord | undefined>(this.capacity);
  }

  write(records: CallRecord[]): void {
    for (const record of records) {
      this.#ring[this.#next] = record;
      this.#next = (this.#next + 1) % this.capacity;
      this.#size = Math.min(this.#size + 1, this.capacity);
    }
  }

  /** The kept records, oldest written first. */
  records(): CallRecord[] {
    const start = this.#size < this.capacity ? 0 : this.#next;
    const result: CallRecord[] = [];
    for (let offset = 0; offset < this.#size; offset++) result.push(this.#ring[(start + offset) % this.capacity]!);
    return result;
  }

  clear(): void {
    this.#ring.fill(undefined);
    this.#next = 0;
    this.#size = 0;
  }

  /** Annotations in memory, as many kept as records. */
  annotationStore(): MemoryAnnotationStore {
    return new MemoryAnnotationStore(this.capacity);
  }

  /** Experiments in memory: one store per sink, so every caller sees the same experiments. */
  experimentStore(): MemoryExperimentStore {
    return (this.#experiments ??= new MemoryExperimentStore());
  }

  async get(id: string): Promise<CallRecord | null> {
    return this.#ring.find((record) => record?.id === id) ?? null;
  }

  async list(query?: ListCallsQuery): Promise<CallPage> {
    const { rows, next_cursor } = this.#page(query);
    return { data: rows.map((row) => row.record), next_cursor };
  }

  async listJson(query?: ListCallsQuery): Promise<CallTextPage> {
    const { rows, next_cursor } = this.#page(query);
    const texts = new Map(rows.map((row) => [row.id, row.json]));
    return { records: recordTexts(rows, () => texts), next_cursor };
  }

  /** Sized as the SQL stores size a page: by each record's JSON in UTF-8. */
  #page(query: ListCallsQuery | undefined) {
    const normalized = normalizeListQuery(query);
    const matching = this.records()
      .filter((record) => matchesListQuery(record, normalized))
      .sort(newestFirst)
      .slice(0, normalized.limit + 1);
    // Serialised here, not cached: the ring would keep every listed record's JSON beside it.
    const sized = matching.map((record) => {
      const json = JSON.stringify(record);
      return { id: record.id, created_at: record.created_at, bytes: utf8Length(json), record, json };
    });
    return sizedPage(sized, normalized.limit);
  }

  async getBounded(id: string, maxBytes: number): Promise<CallRecord | 'too_large' | null> {
    const record = await this.get(id);
    return record && utf8Length(JSON.stringify(record)) > maxBytes ? 'too_large' : record;
  }

  async workflow(traceId: string): Promise<WorkflowSummary | null> {
    const calls = this.records()
      .filter((record) => record.trace_id === traceId)
      .sort((a, b) => newestFirst(b, a));
    return summarizeWorkflow(traceId, calls);
  }

  async recentTraces(limit: number): Promise<TraceSummary[]> {
    const traced = this.records()
      .filter((record) => record.trace_id !== null)
      .sort(newestFirst);
    return tracesOf(traced.slice(0, RECENT_TRACE_CALLS), limit);
  }

  async workflowTimeline(traceId: string, limit: number): Promise<WorkflowTimeline | null> {
    const summary = await this.workflow(traceId);
    return summary && timelineOf(summary, limit);
  }

  async dailyCost(query: DailyCostQuery = {}): Promise<DailyCostRow[]> {
    const { since, until } = dailyCostWindow(query);
    const rows = new Map<string, DailyCostRow>();
    for (const record of this.records()) {
      if (record.created_at < since || record.created_at >= until) continue;
      if (query.workflow_name !== undefined && record.workflow_name !== query.workflow_name) continue;
      const day = record.created_at.slice(0, 10);
      const key = JSON.stringify([day, record.workflow_name]);
      let row = rows.get(key);
      if (!row) {
        row = { day, workflow_name: record.workflow_name, calls: 0, cost_usd: 0, unpriced_calls: 0 };
        rows.set(key, row);
      }
      row.calls += 1;
      if (record.cost_usd === null) row.unpriced_calls += 1;
      else row.cost_usd += record.cost_usd;
    }
    return [...rows.values()].map((row) => ({ ...row, cost_usd: roundUsd(row.cost_usd) })).sort(compareDailyCostRows);
  }

  async queryCalls(query: CallQuery, options?: CallQueryOptions): Promise<CallQueryResult> {
    return queryRecords(this.records(), parseCallQuery(query, options));
  }

  async agents(): Promise<AgentSummary[]> {
    const agents = new Map<string | null, AgentSummary>();
    for (const record of this.records()) {
      let agent = agents.get(record.agent_id);
      if (!agent) {
        agent = {
          agent_id: record.agent_id,
          calls: 0,
          errors: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          reasoning_tokens: 0,
          cost_usd: 0,
          unpriced_calls: 0,
          last_call_at: record.created_at,
        };
        agents.set(record.agent_id, agent);
      }
      agent.calls += 1;
      if (record.status === 'error') agent.errors += 1;
      agent.prompt_tokens += record.usage.prompt_tokens;
      agent.completion_tokens += record.usage.completion_tokens;
      agent.reasoning_tokens += record.usage.reasoning_tokens;
      if (record.cost_usd === null) agent.unpriced_calls += 1;
      else agent.cost_usd += record.cost_usd;
      if (record.created_at > agent.last_call_at) agent.last_call_at = record.created_at;
    }
    return [...agents.values()]
      .map((agent) => ({ ...agent, cost_usd: roundUsd(agent.cost_usd) }))
      .sort(compareAgentSummaries);
  }
}
