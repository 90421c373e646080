import { type CallQueryResult, NUMBER_FIELDS, type ParsedCallQuery, TIME_FIELD } from './call-query.ts';
import { roundUsd } from './compute-cost.ts';

/**
 * The rows of a call query as the stores return them: numbers as numbers (PostgreSQL's bigint and numeric come as
 * text), rounded alike (a sum or an average of doubles differs between engines in its last bits), and `limit` of the
 * `limit + 1` fetched.
 */
type Row = Record<string, unknown>;

export function resultOf(rows: Row[], query: ParsedCallQuery): CallQueryResult {
  const numbers = query.grouped
    ? query.aggregates.filter((aggregate) => aggregate.field !== TIME_FIELD).map((aggregate) => aggregate.name)
    : [...NUMBER_FIELDS];
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
