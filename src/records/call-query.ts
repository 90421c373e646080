import { InvalidRequestError } from '../errors.ts';
import { firstIssueError } from '../internal/first-issue.ts';
import {
  type AGGREGATE_FUNCTIONS,
  type CallQuery,
  type CallQueryFilter,
  callQuerySchemas,
  DEFAULT_QUERY_LIMIT,
  GROUP_COLUMNS,
  NUMBER_FIELDS,
  TIME_FIELD,
} from './call-query-schema.ts';

export { AGGREGATE_FUNCTIONS, GROUP_COLUMNS, MAX_QUERY_LIMIT, NUMBER_FIELDS, TIME_FIELD } from './call-query-schema.ts';
export type { CallQuery };

/**
 * The structured query over call records (`gateway.calls.queryCalls`, `POST /v1/calls/query`, the MCP tool
 * `query_completions`). Every name in it is one of the lists below; the stores compile it to parameterised SQL, so
 * no text a caller writes ever becomes SQL.
 */

/** What a query without aggregates returns of each call: its columns, never its contents (`get_completion`). */
export const ROW_COLUMNS = [
  'id',
  'created_at',
  ...GROUP_COLUMNS.filter((column) => column !== 'day'),
  ...NUMBER_FIELDS,
] as const;
export type GroupColumn = (typeof GROUP_COLUMNS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type RowColumn = (typeof ROW_COLUMNS)[number];
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

/** Rows a caller may read, ANDed to every query: set by whoever knows the caller (a `serve` key's `KeyAccess`). */
export interface CallQueryScope {
  /** Only calls of these agents. */
  agent_ids?: readonly string[];
  /** Only calls made with these `serve` API keys (`metadata.api_key_id`). */
  api_key_ids?: readonly string[];
}

export interface CallQueryOptions {
  scope?: CallQueryScope;
}

export interface CallQueryResult {
  object: 'list';
  /** Row columns, or group columns and aggregates named `<fn>_<field>` (`count` alone: `count`). */
  data: Array<Record<string, string | number | null>>;
  /** More rows matched than `limit`. */
  has_more: boolean;
}

export interface Aggregate {
  fn: AggregateFunction;
  field: NumberField | typeof TIME_FIELD | undefined;
  /** Its name in the result. */
  name: string;
}

/** A query checked and made explicit: what the compilers and the memory store read. */
export interface ParsedCallQuery {
  filter: CallQueryFilter;
  /** Whether the rows are groups (group_by or aggregates given) or calls. */
  grouped: boolean;
  group_by: GroupColumn[];
  aggregates: Aggregate[];
  order_by: Array<{ field: string; direction: 'asc' | 'desc' }>;
  limit: number;
  scope: { agent_ids: string[] | undefined; api_key_ids: string[] | undefined };
}

/** Checks a query; a 400 naming the first wrong path (`filter.colour`, `order_by.0.field`). */
export function parseCallQuery(query: unknown, options: CallQueryOptions = {}): ParsedCallQuery {
  const checked = callQuerySchemas().query.safeParse(query ?? {});
  if (!checked.success) throw firstIssueError('Call query', checked.error, 'the query');
  const { filter = {}, group_by = [], aggregates = [], order_by, limit = DEFAULT_QUERY_LIMIT } = checked.data;
  const grouped = group_by.length > 0 || aggregates.length > 0;
  const named = grouped && aggregates.length === 0 ? [{ fn: 'count' as const }] : aggregates;
  const parsed: ParsedCallQuery = {
    filter,
    grouped,
    group_by: [...new Set(group_by)],
    aggregates: dedupe(named.map(({ fn, field }) => ({ fn, field, name: field ? `${fn}_${field}` : fn }))),
    order_by: [],
    limit,
    scope: scopeOf(options.scope),
  };
  for (const [index, { fn, field }] of aggregates.entries()) {
    if (fn !== 'count' && !field)
      throw new InvalidRequestError(
        `Call query: aggregates.${index}.field: "${fn}" needs a field.`,
        `aggregates.${index}.field`,
      );
    if (field === TIME_FIELD && fn !== 'min' && fn !== 'max')
      throw new InvalidRequestError(
        `Call query: aggregates.${index}.fn: ${TIME_FIELD} is aggregated by min or max only (got "${fn}").`,
        `aggregates.${index}.fn`,
      );
  }
  const columns: readonly string[] = grouped
    ? [...parsed.group_by, ...parsed.aggregates.map((aggregate) => aggregate.name)]
    : ROW_COLUMNS;
  parsed.order_by = (order_by ?? defaultOrder(parsed)).map(({ field, direction = 'asc' }, index) => {
    if (!columns.includes(field))
      throw new InvalidRequestError(
        `Call query: order_by.${index}.field: "${field}" is not a column of the result (${columns.join(', ')}).`,
        `order_by.${index}.field`,
      );
    return { field, direction };
  });
  return parsed;
}

function defaultOrder(query: ParsedCallQuery): Array<{ field: string; direction: 'asc' | 'desc' }> {
  // Ids (UUIDv7) order calls started in the same millisecond.
  if (!query.grouped)
    return [
      { field: 'created_at', direction: 'desc' },
      { field: 'id', direction: 'desc' },
    ];
  return query.group_by.map((field) => ({ field, direction: 'asc' }));
}

function dedupe(aggregates: Aggregate[]): Aggregate[] {
  return [...new Map(aggregates.map((aggregate) => [aggregate.name, aggregate])).values()];
}

function scopeOf(scope: CallQueryScope | undefined): ParsedCallQuery['scope'] {
  const list = (values: readonly string[] | undefined) => (values === undefined ? undefined : [...values]);
  return { agent_ids: list(scope?.agent_ids), api_key_ids: list(scope?.api_key_ids) };
}

/** The UTC ISO form `created_at` is stored in, so that text comparison is time comparison. */
export function isoInstant(value: string): string {
  return new Date(Date.parse(value)).toISOString();
}
