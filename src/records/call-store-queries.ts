import { InvalidRequestError } from '../errors.ts';
import { textFromBase64, toBase64 } from '../internal/bytes.ts';
import { ATTRIBUTION_FIELDS, type ByAttribution, byAttribution, type CallRecord } from './call-record.ts';
import type {
  AgentSummary,
  AgentTotals,
  CallPage,
  CallTiming,
  DailyCostQuery,
  DailyCostRow,
  ListCallsQuery,
  SummaryOf,
  TraceSummary,
  WorkflowSummary,
  WorkflowTimeline,
} from './call-store.ts';
import { roundUsd } from './compute-cost.ts';

/** What the stores that answer queries share: query normalising, cursors, summaries and sort orders. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/** What both stores run a list query with: the filters made comparable to the `created_at` strings. */
export interface NormalizedListQuery extends ByAttribution<string | undefined> {
  api_key_ids: string[] | undefined;
  dialect: string | undefined;
  since: string | undefined;
  until: string | undefined;
  limit: number;
  after: CursorPosition | undefined;
}

/** The list filters that are one column equal to the value given. */
export const LIST_EQUALITIES = [...ATTRIBUTION_FIELDS, 'dialect'] as const;

/** The last row of a page: the next page holds the rows strictly older than it in `(created_at, id)` order. */
export interface CursorPosition {
  created_at: string;
  id: string;
}

export function normalizeListQuery(query: ListCallsQuery = {}): NormalizedListQuery {
  const limit = query.limit === undefined ? DEFAULT_PAGE_SIZE : Math.floor(query.limit);
  if (!Number.isFinite(limit) || limit < 1)
    throw new InvalidRequestError(`"limit" must be between 1 and ${MAX_PAGE_SIZE}.`, 'limit');
  return {
    ...byAttribution((field) => query[field]),
    api_key_ids: query.api_key_ids === undefined ? undefined : keyIds(query.api_key_ids),
    dialect: query.dialect,
    since: query.since === undefined ? undefined : toIso(query.since, 'since'),
    until: query.until === undefined ? undefined : toIso(query.until, 'until'),
    limit: Math.min(limit, MAX_PAGE_SIZE),
    after: query.cursor ? decodeCursor(query.cursor) : undefined,
  };
}

const MAX_KEY_IDS = 10_000;

function keyIds(ids: readonly string[]): string[] {
  if (!Array.isArray(ids) || ids.length > MAX_KEY_IDS || ids.some((id) => typeof id !== 'string'))
    throw new InvalidRequestError(`"api_key_ids" must be at most ${MAX_KEY_IDS} key ids.`, 'api_key_ids');
  return [...ids];
}

function encodeCursor(record: CursorPosition): string {
  return toBase64(JSON.stringify([record.created_at, record.id]), true);
}

function decodeCursor(cursor: string): CursorPosition {
  try {
    const value: unknown = JSON.parse(textFromBase64(cursor));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { created_at: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the error below.
  }
  throw new InvalidRequestError('"cursor" is not a cursor this store returned.', 'cursor', 'invalid_cursor');
}

/**
 * The most record JSON a page of `list` holds, in bytes (UTF-8): past its first call, a page ends before the call
 * that would take it over. Records are whole (up to a few MB each): a page of a thousand of them must not be
 * read, parsed, built or held for a slow reader at once.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** Record JSON a page reads from its store at once, as it is sent (a record larger than this alone). */
const BATCH_BYTES = 1024 * 1024;

/** A row of a page before its record is read: where it sorts, and the size of its record's JSON in bytes. */
export interface SizedRow extends CursorPosition {
  bytes: number;
}

/**
 * The rows of a page, from rows filtered and sorted newest first and fetched with one row beyond `limit`: at most
 * `limit`, and at most `MAX_PAGE_BYTES` of records past the first. `next_cursor` goes on after the last row kept.
 */
export function sizedPage<Row extends SizedRow>(
  rows: Row[],
  limit: number,
): { rows: Row[]; next_cursor: string | null } {
  let bytes = 0;
  let kept = 0;
  for (; kept < Math.min(rows.length, limit); kept++) {
    bytes += Number(rows[kept]!.bytes);
    if (kept > 0 && bytes > MAX_PAGE_BYTES) break;
  }
  const page = rows.slice(0, kept);
  const last = page.at(-1);
  return { rows: page, next_cursor: kept < rows.length && last ? encodeCursor(last) : null };
}

/**
 * A page's records as JSON (text, or its UTF-8 bytes), in the page's order, read `BATCH_BYTES` at a time as they
 * are iterated: `read` gives the texts of some ids (in any order). What one page holds in memory at once is a
 * batch, not the page.
 */
export async function* recordTexts<Text extends string | Uint8Array>(
  rows: readonly SizedRow[],
  read: (ids: string[]) => Map<string, Text> | Promise<Map<string, Text>>,
): AsyncGenerator<Text> {
  for (let start = 0; start < rows.length; ) {
    let end = start + 1;
    let bytes = Number(rows[start]!.bytes);
    while (end < rows.length && bytes + Number(rows[end]!.bytes) <= BATCH_BYTES) bytes += Number(rows[end++]!.bytes);
    const batch = rows.slice(start, end);
    const texts = await read(batch.map((row) => row.id));
    for (const row of batch) {
      const text = texts.get(row.id);
      if (text !== undefined) yield text;
    }
    start = end;
  }
}

/** A page of parsed records from its texts: what `list` returns. */
export async function parsedPage(
  texts: AsyncIterable<string | Uint8Array>,
  next_cursor: string | null,
): Promise<CallPage> {
  const data: CallRecord[] = [];
  const decoder = new TextDecoder();
  for await (const text of texts)
    data.push(JSON.parse(typeof text === 'string' ? text : decoder.decode(text)) as CallRecord);
  return { data, next_cursor };
}

/** The workflow view of a trace's calls, given oldest first. Shared so both stores add up identically. */
export function summarizeWorkflow(traceId: string, calls: CallRecord[]): WorkflowSummary | null;
export function summarizeWorkflow<Call extends CallTiming>(traceId: string, calls: Call[]): SummaryOf<Call> | null;
export function summarizeWorkflow(traceId: string, calls: CallTiming[]): SummaryOf<CallTiming> | null {
  const first = calls[0];
  if (!first) return null;
  const agents = new Map<string | null, AgentTotals>();
  let cost = 0;
  let unpriced = 0;
  let end = Date.parse(first.created_at);
  for (const call of calls) {
    let totals = agents.get(call.agent_id);
    if (!totals) {
      totals = {
        agent_id: call.agent_id,
        calls: 0,
        cost_usd: 0,
        unpriced_calls: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
      };
      agents.set(call.agent_id, totals);
    }
    totals.calls += 1;
    if (call.cost_usd === null) {
      totals.unpriced_calls += 1;
      unpriced += 1;
    } else {
      totals.cost_usd += call.cost_usd;
      cost += call.cost_usd;
    }
    totals.prompt_tokens += call.usage.prompt_tokens;
    totals.completion_tokens += call.usage.completion_tokens;
    end = Math.max(end, Date.parse(call.created_at) + call.latency_ms);
  }
  return {
    trace_id: traceId,
    workflow_name: calls.find((call) => call.workflow_name !== null)?.workflow_name ?? null,
    calls,
    agents: [...agents.values()].map((totals) => ({ ...totals, cost_usd: roundUsd(totals.cost_usd) })),
    cost_usd: roundUsd(cost),
    unpriced_calls: unpriced,
    duration_ms: end - Date.parse(first.created_at),
  };
}

/** A timeline from a full workflow summary: for stores without `workflowTimeline`, and the memory store. */
export function timelineOf(summary: SummaryOf<CallTiming>, limit: number): WorkflowTimeline {
  const calls = summary.calls.slice(0, limit).map(timingOf);
  return { ...summary, calls, call_count: summary.calls.length };
}

function timingOf(call: CallTiming): CallTiming {
  const { id, created_at, dialect, agent_id, workflow_name, model, requested_model, status, cost_usd, latency_ms } =
    call;
  const { usage } = call;
  return {
    id,
    created_at,
    dialect,
    agent_id,
    workflow_name,
    model,
    requested_model,
    status,
    cost_usd,
    latency_ms,
    usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
  };
}

/** Distinct traces of calls given newest first, at most `limit`. */
export function tracesOf(
  calls: Iterable<Pick<CallRecord, 'trace_id' | 'workflow_name' | 'created_at'>>,
  limit: number,
): TraceSummary[] {
  const traces = new Map<string, TraceSummary>();
  for (const call of calls) {
    if (traces.size >= limit) break;
    if (call.trace_id !== null && !traces.has(call.trace_id)) {
      const { trace_id, workflow_name, created_at } = call;
      traces.set(trace_id, { trace_id, workflow_name, created_at });
    }
  }
  return [...traces.values()];
}

/** The daily-cost window: from midnight UTC `days - 1` days before `now` to the midnight after `now`. */
export function dailyCostWindow(query: DailyCostQuery): { since: string; until: string } {
  const days = Math.max(1, Math.floor(query.days ?? 30));
  const now = query.now ?? new Date();
  const midnight = (offsetDays: number) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offsetDays)).toISOString();
  return { since: midnight(-(days - 1)), until: midnight(1) };
}

export function compareDailyCostRows(a: DailyCostRow, b: DailyCostRow): number {
  if (a.day !== b.day) return a.day < b.day ? -1 : 1;
  return compareNullableText(a.workflow_name, b.workflow_name);
}

export function compareAgentSummaries(a: AgentSummary, b: AgentSummary): number {
  if (a.cost_usd !== b.cost_usd) return b.cost_usd - a.cost_usd;
  return compareNullableText(a.agent_id, b.agent_id);
}

/** `null` first, then code-unit order, as SQLite's BINARY collation sorts ASCII. */
function compareNullableText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

function toIso(value: string | Date, param: string): string {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(time)) throw new InvalidRequestError(`"${param}" is not a date.`, param);
  return new Date(time).toISOString();
}
