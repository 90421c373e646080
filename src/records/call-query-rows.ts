import { type CallQueryResult, isoInstant, NUMBER_FIELDS, type ParsedCallQuery, ROW_COLUMNS } from './call-query.ts';
import { TEXT_FILTERS } from './call-query-schema.ts';
import type { CallRecord } from './call-record.ts';
import { roundUsd } from './compute-cost.ts';

/**
 * The rows of a call query as the stores return them: numbers as numbers (PostgreSQL's bigint and numeric come as
 * text), rounded alike (a sum or an average of doubles differs between engines in its last bits), and `limit` of the
 * `limit + 1` fetched. The memory store's answer, computed here from records, goes through the same rounding.
 */
type Row = Record<string, unknown>;

export function resultOf(rows: Row[], query: ParsedCallQuery): CallQueryResult {
  const numbers = query.grouped ? query.aggregates.map((aggregate) => aggregate.name) : [...NUMBER_FIELDS];
  const data = rows.slice(0, query.limit).map((row) => {
    const out: Record<string, string | number | null> = {};
    for (const [name, value] of Object.entries(row)) {
      if (value === null || value === undefined) out[name] = null;
      else if (numbers.includes(name)) out[name] = rounded(name, Number(value));
      else out[name] = value as string | number;
    }
    return out;
  });
  return { object: 'list', data, has_more: rows.length > query.limit };
}

function rounded(name: string, value: number): number {
  if (name.endsWith('cost_usd')) return roundUsd(value);
  return Number.isInteger(value) ? value : Math.round(value * 1e6) / 1e6;
}

/** The query run over records in memory (`MemorySink`), with the SQL stores' semantics. */
export function queryRecords(records: Iterable<CallRecord>, query: ParsedCallQuery): CallQueryResult {
  const matching: Row[] = [];
  for (const record of records) {
    const row = columnsOf(record);
    if (matches(record, row, query)) matching.push(row);
  }
  const rows = query.grouped ? groupRows(matching, query) : matching;
  const order: Array<{ field: string; direction: 'asc' | 'desc' }> = [
    ...query.order_by,
    ...(query.grouped ? query.group_by.map((field) => ({ field, direction: 'asc' as const })) : []),
    ...(query.grouped ? [] : [{ field: 'id', direction: 'asc' as const }]),
  ];
  rows.sort((a, b) => {
    for (const { field, direction } of order) {
      const difference = compare(a[field], b[field], direction);
      if (difference !== 0) return difference;
    }
    return 0;
  });
  const kept = rows.slice(0, query.limit + 1);
  // `day` groups; a row of a call has `created_at`, as in SQL.
  if (!query.grouped) for (const row of kept) delete row.day;
  return resultOf(kept, query);
}

function matches(record: CallRecord, columns: Row, query: ParsedCallQuery): boolean {
  const { filter, scope } = query;
  const among = (value: unknown, wanted: string | readonly string[] | undefined) =>
    wanted === undefined || (typeof wanted === 'string' ? value === wanted : wanted.includes(value as string));
  for (const column of TEXT_FILTERS) if (!among(columns[column], filter[column])) return false;
  if (!among(columns.status, filter.status) || !among(columns.dialect, filter.dialect)) return false;
  if (filter.since !== undefined && record.created_at < isoInstant(filter.since)) return false;
  if (filter.until !== undefined && record.created_at >= isoInstant(filter.until)) return false;
  const cost = record.cost_usd;
  if (filter.min_cost_usd !== undefined && (cost === null || cost < filter.min_cost_usd)) return false;
  if (filter.max_cost_usd !== undefined && (cost === null || cost > filter.max_cost_usd)) return false;
  if (filter.min_latency_ms !== undefined && record.latency_ms < filter.min_latency_ms) return false;
  if (filter.max_latency_ms !== undefined && record.latency_ms > filter.max_latency_ms) return false;
  for (const [key, value] of Object.entries(filter.metadata ?? {}))
    if (!Object.hasOwn(record.metadata ?? {}, key) || record.metadata[key] !== value) return false;
  if (!among(record.agent_id, scope.agent_ids)) return false;
  return among(record.metadata?.api_key_id, scope.api_key_ids);
}

function columnsOf(record: CallRecord): Row {
  const usage = record.usage;
  const values: Row = {
    ...record,
    dialect: record.dialect ?? 'chat',
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    reasoning_tokens: usage.reasoning_tokens,
    cached_tokens: usage.cached_tokens,
  };
  const row: Row = { day: record.created_at.slice(0, 10) };
  for (const column of ROW_COLUMNS) row[column] = values[column] ?? null;
  return row;
}

function groupRows(rows: Row[], query: ParsedCallQuery): Row[] {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = JSON.stringify(query.group_by.map((column) => row[column]));
    const members = groups.get(key);
    if (members) members.push(row);
    else groups.set(key, [row]);
  }
  // Without group_by, one row over every call (SQL's aggregate of no rows included).
  if (query.group_by.length === 0 && groups.size === 0) groups.set('[]', []);
  return [...groups.values()].map((members) => {
    const out: Row = {};
    for (const column of query.group_by) out[column] = members[0]![column];
    for (const { fn, field, name } of query.aggregates) {
      const values = field
        ? members.map((member) => member[field]).filter((value): value is number => typeof value === 'number')
        : members.map(() => 0);
      out[name] = aggregate(fn, values);
    }
    return out;
  });
}

const PERCENTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };

function aggregate(fn: string, values: number[]): number | null {
  if (fn === 'count') return values.length;
  if (values.length === 0) return null;
  const sum = values.reduce((total, value) => total + value, 0);
  if (fn === 'sum') return sum;
  if (fn === 'avg') return sum / values.length;
  if (fn === 'min') return values.reduce((least, value) => Math.min(least, value));
  if (fn === 'max') return values.reduce((most, value) => Math.max(most, value));
  const sorted = [...values].sort((a, b) => a - b);
  const position = PERCENTILES[fn]! * (sorted.length - 1);
  const low = Math.floor(position);
  return sorted[low]! + ((sorted[low + 1] ?? sorted[low]!) - sorted[low]!) * (position - low);
}

/** As the SQL stores order: NULLs first ascending and last descending, text by code unit. */
function compare(a: unknown, b: unknown, direction: 'asc' | 'desc'): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (a === b) return 0;
  if (a === null || a === undefined) return -sign;
  if (b === null || b === undefined) return sign;
  return (a < b ? -1 : 1) * sign;
}
