import type { Expression, ExpressionBuilder, OrderByItemBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import { compile } from '../storage/engine.ts';
import { anyOf, atMost, metadataIs, percentileOf } from '../storage/engine-sql.ts';
import type { Builder } from '../storage/kysely.ts';
import type { EngineKind } from '../storage/schema.ts';
import {
  type Aggregate,
  type CallQueryScope,
  type GroupColumn,
  isoInstant,
  type ParsedCallQuery,
  ROW_COLUMNS,
} from './call-query.ts';
import { NUMBER_FIELDS, TEXT_FILTERS } from './call-query-schema.ts';

/**
 * A parsed call query as one query of the `calls` table, the same for every engine: only names from the lists of
 * `call-query.ts` are written into it, and every value a caller gave is a parameter. Percentiles are exact and
 * interpolated as PostgreSQL's `percentile_cont` is (`percentileOf`). Fetches `limit + 1` rows, so the caller can
 * tell whether there are more.
 */
// biome-ignore lint/suspicious/noExplicitAny: the calls table is checked by its declaration.
type Eb = ExpressionBuilder<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
type Select = SelectQueryBuilder<any, any, any>;

const PERCENTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };
const NUMBERS: readonly string[] = NUMBER_FIELDS;

export function callQueryOf(db: Builder, kind: EngineKind, query: ParsedCallQuery): Select {
  const base = db.selectFrom('calls').where((eb) => eb.and(conditions(kind, eb, query)));
  if (!query.grouped) {
    let rows = base.select([...ROW_COLUMNS]);
    for (const { field, direction } of query.order_by)
      rows = rows.orderBy(field, (item) => order(kind, item, direction, !NUMBERS.includes(field)));
    return rows.orderBy('id', (item) => order(kind, item, 'asc', true)).limit(atMost(query.limit + 1));
  }
  let grouped = base.select((eb) => [
    ...query.group_by.map((column) => groupExpr(eb, column).as(column)),
    ...query.aggregates.map((aggregate) => aggregateExpr(kind, eb, aggregate).as(aggregate.name)),
  ]);
  for (const column of query.group_by) grouped = grouped.groupBy((eb: Eb) => groupExpr(eb, column));
  // A group column is ordered by its expression (PostgreSQL orders by an output's name only when it is bare).
  const orderOf = (field: string, direction: 'asc' | 'desc') =>
    (query.group_by as string[]).includes(field)
      ? (select: Select) =>
          select.orderBy(
            (eb: Eb) => groupExpr(eb, field as GroupColumn),
            (item) => order(kind, item, direction, true),
          )
      : (select: Select) => select.orderBy(field, (item) => order(kind, item, direction, false));
  for (const { field, direction } of query.order_by) grouped = orderOf(field, direction)(grouped);
  for (const column of query.group_by) grouped = orderOf(column, 'asc')(grouped);
  return grouped.limit(atMost(query.limit + 1));
}

/** The query's SQL and parameters, for one engine kind: what a caller wrote is only ever a parameter. */
export function compileCallQuery(query: ParsedCallQuery, kind: EngineKind): { sql: string; params: unknown[] } {
  const { sql, values } = compile((db) => callQueryOf(db, kind, query), kind);
  return { sql, params: values };
}

/** `column` is one of `values`: none matches nothing, one is an equality, more are bound as one value. */
function among(kind: EngineKind, eb: Eb, column: string, values: readonly string[]): Expression<SqlBool> {
  if (values.length === 0) return eb.lit(false);
  if (values.length === 1) return eb(column, '=', values[0]);
  return anyOf(kind, eb, column, [...values]);
}

/** A reader's scope as conditions, ANDed to a query's own (the call query's, and `StoredCalls`' pages). */
export function scopeConditions(
  kind: EngineKind,
  eb: Eb,
  scope: { readonly [K in keyof CallQueryScope]?: CallQueryScope[K] | undefined },
): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (scope.agent_ids !== undefined) out.push(among(kind, eb, 'agent_id', scope.agent_ids));
  if (scope.api_key_ids !== undefined) out.push(among(kind, eb, 'api_key_id', scope.api_key_ids));
  return out;
}

function conditions(kind: EngineKind, eb: Eb, query: ParsedCallQuery): Expression<SqlBool>[] {
  const { filter, scope } = query;
  const out: Expression<SqlBool>[] = [];
  for (const column of TEXT_FILTERS) {
    const value = filter[column];
    if (value !== undefined) out.push(among(kind, eb, column, typeof value === 'string' ? [value] : value));
  }
  if (filter.status !== undefined) out.push(eb('status', '=', filter.status));
  if (filter.dialect !== undefined) out.push(eb('dialect', '=', filter.dialect));
  if (filter.since !== undefined) out.push(eb('created_at', '>=', isoInstant(filter.since)));
  if (filter.until !== undefined) out.push(eb('created_at', '<', isoInstant(filter.until)));
  if (filter.min_cost_usd !== undefined) out.push(eb('cost_usd', '>=', filter.min_cost_usd));
  if (filter.max_cost_usd !== undefined) out.push(eb('cost_usd', '<=', filter.max_cost_usd));
  if (filter.min_latency_ms !== undefined) out.push(eb('latency_ms', '>=', filter.min_latency_ms));
  if (filter.max_latency_ms !== undefined) out.push(eb('latency_ms', '<=', filter.max_latency_ms));
  for (const [key, value] of Object.entries(filter.metadata ?? {}))
    out.push(metadataIs(kind, eb, 'record', key, value));
  // The caller's scope: ANDed after the filter, which can only narrow it.
  out.push(...scopeConditions(kind, eb, scope));
  return out;
}

function groupExpr(eb: Eb, column: GroupColumn) {
  return column === 'day' ? eb.fn<string>('substr', [eb.ref('created_at'), eb.lit(1), eb.lit(10)]) : eb.ref(column);
}

function aggregateExpr(kind: EngineKind, eb: Eb, { fn, field }: Aggregate) {
  if (!field) return eb.fn.countAll();
  const fraction = PERCENTILES[fn];
  if (fraction !== undefined) return percentileOf(kind, eb, field, fraction);
  return eb.fn.agg(fn, [eb.ref(field)]);
}

/**
 * NULLs sort as SQLite sorts them by default, first ascending and last descending, in every engine; text in byte
 * order (PostgreSQL's own collation would not be).
 */
function order(kind: EngineKind, item: OrderByItemBuilder, direction: 'asc' | 'desc', text: boolean) {
  const collated = text && kind === 'postgres' ? item.collate('C') : item;
  return direction === 'asc' ? collated.asc().nullsFirst() : collated.desc().nullsLast();
}
