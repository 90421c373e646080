import * as z from 'zod';
import { InvalidRequestError } from '../errors.ts';

/**
 * The structured query over call records (`gateway.calls.queryCalls`, `POST /v1/calls/query`, the MCP tool
 * `query_completions`). Every name in it is one of the lists below; the stores compile it to parameterised SQL, so
 * no text a caller writes ever becomes SQL.
 */

/** Text columns a query filters and groups on; `day` is the UTC day of `created_at` (`YYYY-MM-DD`). */
export const GROUP_COLUMNS = [
  'agent_id',
  'workflow_name',
  'trace_id',
  'deployment_id',
  'requested_model',
  'model',
  'provider',
  'status',
  'dialect',
  'day',
] as const;
/** Numbers a query aggregates, filters and orders on. */
export const NUMBER_FIELDS = [
  'cost_usd',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
] as const;
/** What a query without aggregates returns of each call: its columns, never its contents (`get_completion`). */
export const ROW_COLUMNS = [
  'id',
  'created_at',
  ...GROUP_COLUMNS.filter((column) => column !== 'day'),
  ...NUMBER_FIELDS,
] as const;
export const AGGREGATE_FUNCTIONS = ['count', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p99'] as const;
export const MAX_QUERY_LIMIT = 1000;
const DEFAULT_QUERY_LIMIT = 100;

export type GroupColumn = (typeof GROUP_COLUMNS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type RowColumn = (typeof ROW_COLUMNS)[number];
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

// No NUL: PostgreSQL's text cannot hold it, and both stores must answer alike.
const text = z
  .string()
  .min(1)
  .max(500)
  .refine((value) => !value.includes('\u0000'), 'must not contain U+0000');
const oneOrMore = (what: string) =>
  z
    .union([text, z.array(text).min(1).max(100)])
    .optional()
    .describe(`${what}: one value, or a list (any of them).`);
const instant = z
  .string()
  .max(40)
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date or time');
const bound = (what: string) => z.number().finite().min(0).optional().describe(what);

const filterSchema = z
  .object({
    agent_id: oneOrMore('Calls of these agents'),
    workflow_name: oneOrMore('Calls of these workflows'),
    trace_id: oneOrMore('Calls of these traces'),
    deployment_id: oneOrMore('Calls of these deployments'),
    requested_model: oneOrMore('Calls that asked for these models, as written'),
    model: oneOrMore('Calls served by these catalog models'),
    provider: oneOrMore('Calls served by these providers'),
    status: z.enum(['ok', 'error']).optional().describe('Calls that succeeded (ok) or failed (error).'),
    dialect: z.enum(['chat', 'responses', 'messages', 'embeddings']).optional().describe('Calls of one API.'),
    since: instant.optional().describe('Calls started at or after this ISO 8601 time.'),
    until: instant.optional().describe('Calls started before this ISO 8601 time.'),
    min_cost_usd: bound('Calls that cost at least this many USD (calls of unknown price are left out).'),
    max_cost_usd: bound('Calls that cost at most this many USD (calls of unknown price are left out).'),
    min_latency_ms: bound('Calls that took at least this many milliseconds.'),
    max_latency_ms: bound('Calls that took at most this many milliseconds.'),
    metadata: z
      .record(text, z.string().max(1000))
      .refine((value) => Object.keys(value).length <= 10, 'at most 10 keys')
      .optional()
      .describe('Calls whose request metadata has each of these keys with exactly this value (at most 10).'),
  })
  .strict();

const aggregateSchema = z
  .object({
    fn: z.enum(AGGREGATE_FUNCTIONS).describe('count, sum, avg, min, max, or a percentile: p50, p90, p99.'),
    field: z
      .enum(NUMBER_FIELDS)
      .optional()
      .describe('The number aggregated; count without it counts calls. Named <fn>_<field> in the result.'),
  })
  .strict();

const orderSchema = z
  .object({
    field: z.string().max(100).describe('A column of the result: a row column, a group_by column or an aggregate.'),
    direction: z.enum(['asc', 'desc']).optional().describe('asc (default) or desc.'),
  })
  .strict();

export const callQuerySchema = z
  .object({
    filter: filterSchema.optional().describe('Which calls: every condition must hold.'),
    group_by: z
      .array(z.enum(GROUP_COLUMNS))
      .max(4)
      .optional()
      .describe('Columns to group the calls by; each result row is one group (with a count unless aggregates).'),
    aggregates: z
      .array(aggregateSchema)
      .max(12)
      .optional()
      .describe('Numbers per group (or over every call without group_by), such as p90 of latency_ms.'),
    order_by: z.array(orderSchema).max(4).optional().describe('Result order; default newest first, or by group.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_QUERY_LIMIT)
      .optional()
      .describe(`Rows returned: default ${DEFAULT_QUERY_LIMIT}, at most ${MAX_QUERY_LIMIT}.`),
  })
  .strict();

export type CallQuery = z.input<typeof callQuerySchema>;

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
  field: NumberField | undefined;
  /** Its name in the result. */
  name: string;
}

/** A query checked and made explicit: what the compilers and the memory store read. */
export interface ParsedCallQuery {
  filter: NonNullable<z.output<typeof filterSchema>>;
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
  const checked = callQuerySchema.safeParse(query ?? {});
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = [...issue.path, ...keys.slice(0, 1)].join('.');
    throw new InvalidRequestError(`Call query: ${path || 'the query'}: ${issue.message}`, path || null);
  }
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
  for (const [index, { fn, field }] of aggregates.entries())
    if (fn !== 'count' && !field)
      throw new InvalidRequestError(
        `Call query: aggregates.${index}.field: "${fn}" needs a field.`,
        `aggregates.${index}.field`,
      );
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
  if (!query.grouped) return [{ field: 'created_at', direction: 'desc' }];
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
