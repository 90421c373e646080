import { type Aggregate, type GroupColumn, isoInstant, type ParsedCallQuery, ROW_COLUMNS } from './call-query.ts';
import { NUMBER_FIELDS, TEXT_FILTERS } from './call-query-schema.ts';
import { readableJson } from './sinks/postgres-schema.ts';

/**
 * A parsed call query as one parameterised SQL statement, for SQLite or PostgreSQL. Only names from the lists of
 * `call-query.ts` are written into the SQL; every value a caller gave is a parameter. Percentiles are exact and
 * interpolated as PostgreSQL's `percentile_cont` is: PostgreSQL runs it, SQLite (which has none) ranks each group's
 * values with window functions and interpolates between the two nearest ranks, in the database.
 */
export interface SqlDialect {
  name: 'sqlite' | 'postgres';
  table: string;
  /** The placeholder of the `n`th parameter (1-based). */
  placeholder(n: number): string;
  /** `expr` is any of the values of one array parameter, and that parameter's value. */
  anyOf(expr: string, placeholder: string): string;
  listValue(values: readonly string[]): unknown;
  /** The call's `metadata.api_key_id`: a column of its own, indexed. */
  apiKeyId: string;
  /** The call's metadata has key `$k` with value `$v`. */
  metadataEquals(key: string, value: string): string;
  /** Appended to text in ORDER BY: byte order in both engines. */
  textOrder: string;
}

export const SQLITE: SqlDialect = {
  name: 'sqlite',
  table: 'calls',
  placeholder: () => '?',
  anyOf: (expr, p) => `${expr} IN (SELECT value FROM json_each(${p}))`,
  listValue: (values) => JSON.stringify(values),
  apiKeyId: 'api_key_id',
  // json_each takes the key as a value, never as a path: a key with dots or quotes is only a key.
  metadataEquals: (k, v) => `EXISTS (SELECT 1 FROM json_each(record, '$.metadata') WHERE key = ${k} AND value = ${v})`,
  textOrder: '',
};

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  table: 'switchyard_calls',
  placeholder: (n) => `$${n}`,
  anyOf: (expr, p) => `${expr} = ANY(${p}::text[])`,
  listValue: (values) => [...values],
  apiKeyId: 'api_key_id',
  metadataEquals: (k, v) => `(${readableJson('record')} -> 'metadata' ->> ${k}::text) = ${v}::text`,
  textOrder: ' COLLATE "C"',
};

export interface CompiledQuery {
  sql: string;
  params: unknown[];
}

const PERCENTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };
const NUMBERS: readonly string[] = NUMBER_FIELDS;

/** Fetches `limit + 1` rows, so the caller can tell whether there are more. */
export function compileCallQuery(query: ParsedCallQuery, dialect: SqlDialect): CompiledQuery {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  const where = whereClause(query, dialect, param);
  const limit = param(query.limit + 1);
  if (!query.grouped) {
    const order = query.order_by.map(({ field, direction }) => orderTerm(field, direction, isText(field), dialect));
    order.push(`id${dialect.textOrder} ASC`);
    const columns = ROW_COLUMNS.join(', ');
    return {
      sql: `SELECT ${columns} FROM ${dialect.table}${where} ORDER BY ${order.join(', ')} LIMIT ${limit}`,
      params,
    };
  }
  const groups = query.group_by.map((column, index) => ({ column, alias: `g${index}`, expr: groupExpr(column) }));
  const partition = groups.length > 0 ? `PARTITION BY ${groups.map((group) => group.expr).join(', ')}` : '';
  const ranked = dialect.name === 'sqlite' ? rankColumns(query.aggregates, partition) : [];
  const inner = [...groups.map((group) => `${group.expr} AS ${group.alias}`), ...NUMBERS, ...ranked];
  const outer = [
    ...groups.map((group) => `${group.alias} AS "${group.column}"`),
    ...query.aggregates.map((aggregate) => `${aggregateExpr(aggregate, dialect)} AS "${aggregate.name}"`),
  ];
  const order = query.order_by.map(({ field, direction }) => {
    const group = groups.find((candidate) => candidate.column === field);
    return group
      ? orderTerm(group.alias, direction, true, dialect)
      : orderTerm(`"${field}"`, direction, false, dialect);
  });
  order.push(...groups.map((group) => orderTerm(group.alias, 'asc', true, dialect)));
  const sql =
    `SELECT ${outer.join(', ')} FROM (SELECT ${inner.join(', ')} FROM ${dialect.table}${where}) AS base` +
    (groups.length > 0 ? ` GROUP BY ${groups.map((group) => group.alias).join(', ')}` : '') +
    (order.length > 0 ? ` ORDER BY ${order.join(', ')}` : '') +
    ` LIMIT ${limit}`;
  return { sql, params };
}

function whereClause(query: ParsedCallQuery, dialect: SqlDialect, param: (value: unknown) => string): string {
  const { filter, scope } = query;
  const conditions: string[] = [];
  const anyOf = (expr: string, values: readonly string[]) => {
    if (values.length === 0) conditions.push('1 = 0');
    else if (values.length === 1) conditions.push(`${expr} = ${param(values[0])}`);
    else conditions.push(dialect.anyOf(expr, param(dialect.listValue(values))));
  };
  for (const column of TEXT_FILTERS) {
    const value = filter[column];
    if (value !== undefined) anyOf(column, typeof value === 'string' ? [value] : value);
  }
  if (filter.status !== undefined) conditions.push(`status = ${param(filter.status)}`);
  if (filter.dialect !== undefined) conditions.push(`dialect = ${param(filter.dialect)}`);
  if (filter.since !== undefined) conditions.push(`created_at >= ${param(isoInstant(filter.since))}`);
  if (filter.until !== undefined) conditions.push(`created_at < ${param(isoInstant(filter.until))}`);
  if (filter.min_cost_usd !== undefined) conditions.push(`cost_usd >= ${param(filter.min_cost_usd)}`);
  if (filter.max_cost_usd !== undefined) conditions.push(`cost_usd <= ${param(filter.max_cost_usd)}`);
  if (filter.min_latency_ms !== undefined) conditions.push(`latency_ms >= ${param(filter.min_latency_ms)}`);
  if (filter.max_latency_ms !== undefined) conditions.push(`latency_ms <= ${param(filter.max_latency_ms)}`);
  for (const [key, value] of Object.entries(filter.metadata ?? {}))
    conditions.push(dialect.metadataEquals(param(key), param(value)));
  // The caller's scope: ANDed after the filter, which can only narrow it.
  if (scope.agent_ids !== undefined) anyOf('agent_id', scope.agent_ids);
  if (scope.api_key_ids !== undefined) anyOf(dialect.apiKeyId, scope.api_key_ids);
  return conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
}

function groupExpr(column: GroupColumn): string {
  return column === 'day' ? 'substr(created_at, 1, 10)' : column;
}

function isText(column: string): boolean {
  return !NUMBERS.includes(column);
}

/** NULLs sort as SQLite sorts them by default, first ascending and last descending, in both engines. */
function orderTerm(expr: string, direction: 'asc' | 'desc', text: boolean, dialect: SqlDialect): string {
  const collated = text ? `${expr}${dialect.textOrder}` : expr;
  return direction === 'asc' ? `${collated} ASC NULLS FIRST` : `${collated} DESC NULLS LAST`;
}

/** SQLite's percentile inputs: each value's rank in its group (NULLs last) and the group's count of values. */
function rankColumns(aggregates: Aggregate[], partition: string): string[] {
  const fields = new Set(aggregates.filter((a) => a.fn in PERCENTILES && a.field).map((a) => a.field!));
  return [...fields].flatMap((field) => [
    `ROW_NUMBER() OVER (${partition} ORDER BY ${field} ASC NULLS LAST) - 1 AS r_${field}`,
    `COUNT(${field}) OVER (${partition}) AS n_${field}`,
  ]);
}

function aggregateExpr({ fn, field }: Aggregate, dialect: SqlDialect): string {
  if (!field) return 'count(*)';
  const fraction = PERCENTILES[fn];
  if (fraction === undefined) return `${fn}(${field})`;
  if (dialect.name === 'postgres') return `percentile_cont(${fraction}) WITHIN GROUP (ORDER BY ${field}::float8)`;
  // The value at rank floor(p·(n−1)), moved toward the next rank's by the fractional part.
  const low = `CAST(${fraction} * (n_${field} - 1) AS INTEGER)`;
  const at = (rank: string) => `max(CASE WHEN r_${field} = ${rank} THEN ${field} END)`;
  const position = `${fraction} * (max(n_${field}) - 1)`;
  return (
    `(${at(low)} + coalesce(${at(`${low} + 1`)} - ${at(low)}, 0) * ` + `(${position} - CAST(${position} AS INTEGER)))`
  );
}
