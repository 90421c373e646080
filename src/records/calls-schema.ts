import { readableJson } from '../storage/engine-sql.ts';
import { column, defineSchema, type EngineKind, type TableSpec, withColumn } from '../storage/schema.ts';
import { ATTRIBUTION, ATTRIBUTION_FIELDS, byAttribution, type CallRecord } from './call-record.ts';
import type { CallTiming, TraceSummary } from './call-store.ts';
import { recordJson } from './record-json.ts';

/**
 * The `calls` table: the queryable fields of a record get columns; `record` holds the whole record as JSON, so no
 * field is ever lost (text, not PostgreSQL's JSONB: JSONB refuses what callers send, `\u0000` and lone surrogates).
 * `cost_usd` is NULL when a price was not known, so sums leave it out instead of counting $0. The agent, trace,
 * workflow and key indexes are partial: a call without one (most calls have no trace) costs no entry there, and
 * `x = ?` still uses them; `api_key_id` (the record's `metadata.api_key_id`) lets a key read its own calls without
 * reading anyone else's record.
 */
const CALLS: TableSpec = {
  name: 'calls',
  columns: {
    id: column.key({ notNull: true }),
    created_at: column.key({ notNull: true }),
    dialect: column.text({ notNull: true, default: 'chat' }),
    ...byAttribution(() => column.text()),
    deployment_id: column.text(),
    requested_model: column.text({ notNull: true }),
    model: column.text(),
    provider: column.text(),
    status: column.text({ notNull: true }),
    stream: column.boolean({ notNull: true }),
    prompt_tokens: column.integer({ notNull: true }),
    completion_tokens: column.integer({ notNull: true }),
    reasoning_tokens: column.integer({ notNull: true }),
    cached_tokens: column.integer({ notNull: true }),
    cache_write_tokens: column.integer({ notNull: true, default: 0 }),
    cost_usd: column.real(),
    cost_input_usd: column.real(),
    cost_cache_read_usd: column.real(),
    cost_cache_write_usd: column.real(),
    cost_output_usd: column.real(),
    cost_reasoning_usd: column.real(),
    latency_ms: column.real({ notNull: true }),
    record: column.json({ notNull: true }),
    api_key_id: column.text({
      // Read once from the records, here, so that a key's queries never read the records of others. A record a
      // database cannot read as JSON (none is written so) is left without a key id rather than failing the start.
      backfill: {
        sqlite: {
          set: "json_extract(record, '$.metadata.api_key_id')",
          where: `record LIKE '%"api_key_id"%' AND json_valid(record)`,
        },
        postgres: {
          set: `${readableJson('record')} -> 'metadata' ->> 'api_key_id'`,
          where: `record LIKE '%"api_key_id"%'`,
        },
      },
    }),
  },
  primaryKey: ['id'],
  indexes: [
    { suffix: 'by_created_at', columns: ['created_at', 'id'] },
    ...ATTRIBUTION_FIELDS.map((field) => withColumn(`with_${field}`, [field, 'created_at', 'id'])),
    withColumn('with_api_key_id', ['api_key_id', 'created_at', 'id']),
  ],
  // The first version's full indexes: history, so spelled out rather than read from today's attribution fields.
  retiredIndexes: ['by_agent_id', 'by_trace_id', 'by_workflow_name'],
};

/** Version 2 filled `api_key_id`; 3 gave PostgreSQL the cost columns SQLite had. */
export const CALLS_SCHEMA = defineSchema({ name: 'calls', version: 3, tables: [CALLS] });
export const CALLS_TABLE = CALLS;

/** The column of the workflow a call belongs to: the daily cost groups by it. */
export const WORKFLOW_COLUMN = ATTRIBUTION.workflow;
/** What a trace summary reads of a call. */
export const TRACE_COLUMNS = ['trace_id', WORKFLOW_COLUMN, 'created_at'] as const satisfies ReadonlyArray<
  keyof TraceSummary
>;
/** What a timeline reads of a call: never its record. */
export const TIMING_COLUMNS = [
  'id',
  'created_at',
  'dialect',
  'agent_id',
  WORKFLOW_COLUMN,
  'model',
  'requested_model',
  'status',
  'cost_usd',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
] as const;

export type TimingRow = Omit<CallTiming, 'usage'> & { prompt_tokens: number; completion_tokens: number };

export function timingOfRow({ prompt_tokens, completion_tokens, ...row }: TimingRow): CallTiming {
  return { ...row, usage: { prompt_tokens: Number(prompt_tokens), completion_tokens: Number(completion_tokens) } };
}

/**
 * A record as its row. The memory engine keeps the record itself (records are not changed once built, and the
 * in-process default writes one per call: it never serialises them); the SQL engines its JSON, made once per record
 * for every writer (`recordJson`).
 */
export function callRow(kind: EngineKind, record: CallRecord): Record<string, unknown> {
  const { usage, cost } = record;
  return {
    id: record.id,
    created_at: record.created_at,
    dialect: record.dialect ?? 'chat',
    ...byAttribution((field) => record[field]),
    deployment_id: record.deployment_id,
    requested_model: record.requested_model,
    model: record.model,
    provider: record.provider,
    status: record.status,
    stream: record.stream,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    reasoning_tokens: usage.reasoning_tokens,
    cached_tokens: usage.cached_tokens,
    cache_write_tokens: usage.cache_write_tokens ?? 0,
    cost_usd: record.cost_usd,
    cost_input_usd: cost?.input ?? null,
    cost_cache_read_usd: cost?.cache_read ?? null,
    cost_cache_write_usd: cost?.cache_write ?? null,
    cost_output_usd: cost?.output ?? null,
    cost_reasoning_usd: cost?.reasoning ?? null,
    latency_ms: record.latency_ms,
    record: kind === 'memory' ? record : recordJson(record),
    api_key_id: record.metadata?.api_key_id ?? null,
  };
}

/** The record a row holds: its JSON (SQL engines, as text or bytes), or the record itself (memory). */
export function recordOf(value: unknown): CallRecord {
  if (typeof value === 'string') return JSON.parse(value) as CallRecord;
  if (value instanceof Uint8Array) return JSON.parse(new TextDecoder().decode(value)) as CallRecord;
  return value as CallRecord;
}
