import type { CallRecord } from '../call-record.ts';
import { recordJson } from '../record-json.ts';

/**
 * `column` (JSON as text) as json PostgreSQL reads. JSON.stringify writes U+0000 and lone surrogates as `\u`
 * escapes (never a surrogate pair: those are written as themselves), and PostgreSQL's json refuses both when it
 * reads a value out of the text: each becomes `\ufffd`. An escape is one only after an even run of backslashes
 * (`\\u0000` is a backslash and the text u0000), which the lookbehind and the kept run make sure of.
 */
export function readableJson(column: string): string {
  const unreadable = String.raw`(?<!\\)((?:\\\\)*)\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})`;
  return `regexp_replace(${column}, '${unreadable}', '${String.raw`\1\\ufffd`}', 'g')::json`;
}

/**
 * The `switchyard_calls` table of `PostgresSink` and its versioned migrations. Text that is ordered (ids, ISO
 * times) is `COLLATE "C"`, so pages follow the same byte order as the other stores and cursors carry over. The
 * agent, trace and workflow indexes are partial, as in SQLite: most calls have no trace. `record` is the record's JSON
 * as text, not JSONB: JSONB refuses what callers send (`\u0000`, lone surrogates), and a record must never be lost.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
CREATE TABLE switchyard_calls (
  id TEXT COLLATE "C" PRIMARY KEY,
  created_at TEXT COLLATE "C" NOT NULL,
  dialect TEXT NOT NULL DEFAULT 'chat',
  agent_id TEXT,
  trace_id TEXT,
  workflow_name TEXT,
  deployment_id TEXT,
  requested_model TEXT NOT NULL,
  model TEXT,
  provider TEXT,
  status TEXT NOT NULL,
  stream BOOLEAN NOT NULL,
  prompt_tokens BIGINT NOT NULL,
  completion_tokens BIGINT NOT NULL,
  reasoning_tokens BIGINT NOT NULL,
  cached_tokens BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION,
  latency_ms DOUBLE PRECISION NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX switchyard_calls_by_created_at ON switchyard_calls (created_at, id);
CREATE INDEX switchyard_calls_with_agent_id ON switchyard_calls (agent_id, created_at, id) WHERE agent_id IS NOT NULL;
CREATE INDEX switchyard_calls_with_trace_id ON switchyard_calls (trace_id, created_at, id) WHERE trace_id IS NOT NULL;
CREATE INDEX switchyard_calls_with_workflow_name ON switchyard_calls (workflow_name, created_at, id)
  WHERE workflow_name IS NOT NULL;`,
  },
  {
    // A key's own calls by index, never by reading every record. Filled from the records once: PostgreSQL's json
    // refuses the escapes of U+0000 and lone surrogates a record may hold (anywhere), so those become U+FFFD first.
    version: 2,
    sql: `
ALTER TABLE switchyard_calls ADD COLUMN api_key_id TEXT;
UPDATE switchyard_calls
  SET api_key_id = ${readableJson('record')}
    -> 'metadata' ->> 'api_key_id'
  WHERE record LIKE '%"api_key_id"%';
CREATE INDEX switchyard_calls_with_api_key_id ON switchyard_calls (api_key_id, created_at, id)
  WHERE api_key_id IS NOT NULL;`,
  },
];

const COLUMNS = [
  'id',
  'created_at',
  'dialect',
  'agent_id',
  'trace_id',
  'workflow_name',
  'deployment_id',
  'requested_model',
  'model',
  'provider',
  'status',
  'stream',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cost_usd',
  'latency_ms',
  'record',
  'api_key_id',
] as const;

/** One multi-row insert for a batch; a record written twice (a retried batch) replaces itself. */
export function insertBatch(records: readonly CallRecord[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  // One row per id: PostgreSQL refuses a statement that would update one row twice.
  const unique = [...new Map(records.map((record) => [record.id, record])).values()];
  const rows = unique.map((record) => {
    const row = rowOf(record);
    const placeholders = row.map((value) => {
      values.push(value);
      return `$${values.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  const updates = COLUMNS.filter((column) => column !== 'id').map((column) => `${column} = EXCLUDED.${column}`);
  return {
    text:
      `INSERT INTO switchyard_calls (${COLUMNS.join(', ')}) VALUES ${rows.join(', ')} ` +
      `ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`,
    values,
  };
}

/**
 * PostgreSQL's text cannot hold U+0000, which a caller may put in an agent id or a model name. The columns are for
 * querying: there it becomes U+FFFD; the record column, JSON, keeps it escaped and exact.
 */
const text = (value: string | null): string | null => (value === null ? null : value.replaceAll('\u0000', '\ufffd'));

function rowOf(record: CallRecord): unknown[] {
  return [
    text(record.id),
    record.created_at,
    record.dialect ?? 'chat',
    text(record.agent_id),
    text(record.trace_id),
    text(record.workflow_name),
    text(record.deployment_id),
    text(record.requested_model),
    text(record.model),
    text(record.provider),
    record.status,
    record.stream,
    record.usage.prompt_tokens,
    record.usage.completion_tokens,
    record.usage.reasoning_tokens,
    record.usage.cached_tokens,
    record.usage.cache_write_tokens ?? 0,
    record.cost_usd,
    record.latency_ms,
    recordJson(record),
    text(record.metadata?.api_key_id ?? null),
  ];
}
