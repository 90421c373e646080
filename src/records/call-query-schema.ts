import type * as Zod from 'zod';
import { zod } from '../internal/load-zod.ts';
import { ATTRIBUTION, ATTRIBUTION_FIELDS, type ByAttribution, byAttribution, DIALECTS } from './call-record.ts';

/** Text columns a query filters on by value (one or a list). */
export const TEXT_FILTERS = [...ATTRIBUTION_FIELDS, 'deployment_id', 'requested_model', 'model', 'provider'] as const;
/** Columns a query groups on; `day` is the UTC day of `created_at` (`YYYY-MM-DD`). */
export const GROUP_COLUMNS = [...TEXT_FILTERS, 'status', 'dialect', 'day'] as const;
/** Numbers a query aggregates, filters and orders on. */
export const NUMBER_FIELDS = [
  'cost_usd',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
] as const;
/** The call's start (ISO 8601), aggregated by `min` and `max` only: a group's first and last call. */
export const TIME_FIELD = 'created_at';
export const AGGREGATE_FUNCTIONS = ['count', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p99'] as const;
export const MAX_QUERY_LIMIT = 1000;
export const DEFAULT_QUERY_LIMIT = 100;

/**
 * The call query's zod schema (the MCP tool's input schema too), built on first use: the records module is loaded
 * with every gateway, and zod alone takes ~100 ms to import.
 */
export const callQuerySchemas = (): CallQuerySchemas => (schemas ??= buildSchemas(zod().z));
let schemas: CallQuerySchemas | undefined;
type CallQuerySchemas = ReturnType<typeof buildSchemas>;

/** What each attribution field names (an agent, a trace, a workflow), for the filters' descriptions. */
const NAMED_BY = Object.fromEntries(
  Object.entries(ATTRIBUTION).map(([named, field]) => [field, named]),
) as ByAttribution<string>;

function buildSchemas(z: typeof Zod.z) {
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
      ...byAttribution((field) => oneOrMore(`Calls of these ${NAMED_BY[field]}s`)),
      deployment_id: oneOrMore('Calls of these deployments'),
      requested_model: oneOrMore('Calls that asked for these models, as written'),
      model: oneOrMore('Calls served by these catalog models'),
      provider: oneOrMore('Calls served by these providers'),
      status: z.enum(['ok', 'error']).optional().describe('Calls that succeeded (ok) or failed (error).'),
      dialect: z.enum(DIALECTS).optional().describe('Calls of one API.'),
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
        .enum([...NUMBER_FIELDS, TIME_FIELD])
        .optional()
        .describe(
          'The number aggregated; count without it counts calls; created_at with min or max only (the first or ' +
            'last call). Named <fn>_<field> in the result.',
        ),
    })
    .strict();

  const orderSchema = z
    .object({
      field: z.string().max(100).describe('A column of the result: a row column, a group_by column or an aggregate.'),
      direction: z.enum(['asc', 'desc']).optional().describe('asc (default) or desc.'),
    })
    .strict();

  const callQuerySchema = z
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

  return { query: callQuerySchema, filter: filterSchema };
}

export type CallQuery = Zod.input<CallQuerySchemas['query']>;
export type CallQueryFilter = NonNullable<Zod.output<CallQuerySchemas['filter']>>;
