import type { SQLInputValue } from 'node:sqlite';
import type { CallRecord } from '../call-record.ts';
import type { CallTiming } from '../call-store.ts';
import { recordJson } from '../record-json.ts';

/** The `calls` table of `SqliteSink`: its schema and migrations, and how a record becomes a row and back. */

/**
 * The queryable fields get columns; `record` holds the whole record as JSON, so no field is ever lost. `cost_usd` is
 * `NULL` when a price was not known, so sums leave it out instead of counting $0. The agent, trace and workflow
 * indexes are partial: a call without one (most calls have no trace) costs no entry there, and `x = ?` still uses
 * them. Each index entry is ~8 µs of a row's ~15–40 µs insert.
 */
const TABLE = `
CREATE TABLE IF NOT EXISTS calls (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  dialect TEXT NOT NULL DEFAULT 'chat',
  agent_id TEXT,
  trace_id TEXT,
  workflow_name TEXT,
  deployment_id TEXT,
  requested_model TEXT NOT NULL,
  model TEXT,
  provider TEXT,
  status TEXT NOT NULL,
  stream INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL,
  cost_input_usd REAL,
  cost_cache_read_usd REAL,
  cost_cache_write_usd REAL,
  cost_output_usd REAL,
  cost_reasoning_usd REAL,
  latency_ms REAL NOT NULL,
  record TEXT NOT NULL,
  api_key_id TEXT
)`;

const INDEXES = `
CREATE INDEX IF NOT EXISTS calls_by_created_at ON calls (created_at, id);
CREATE INDEX IF NOT EXISTS calls_with_agent_id ON calls (agent_id, created_at, id) WHERE agent_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_with_trace_id ON calls (trace_id, created_at, id) WHERE trace_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_with_workflow_name ON calls (workflow_name, created_at, id)
  WHERE workflow_name IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_with_api_key_id ON calls (api_key_id, created_at, id) WHERE api_key_id IS NOT NULL;
`;

/** The columns of the first `calls` table, which a database made by an earlier version still has. */
const FIRST_COLUMNS = `id, created_at, agent_id, trace_id, workflow_name, deployment_id, requested_model, model,
  provider, status, stream, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens, cost_usd, latency_ms,
  record`;

/**
 * Creates the table, or brings one made by an earlier version up to date in one transaction: the full indexes of
 * the first version become partial, a table whose `cost_usd` was `NOT NULL` (every unknown price stored as 0)
 * is rebuilt with the cost columns, its rows kept, one without `dialect` gains it (its calls were all chat), and
 * one without `api_key_id` gains it, filled from each record's `metadata.api_key_id` (read once, here, so that a
 * key's queries never read the records of others).
 */
export function migrateCalls(db: { exec(sql: string): void; prepare(sql: string): { all(): unknown[] } }): void {
  const columns = db.prepare('PRAGMA table_info(calls)').all() as Array<{ name: string; notnull: number }>;
  const costNotNull = columns.some((column) => column.name === 'cost_usd' && column.notnull === 1);
  const withoutDialect = columns.length > 0 && !columns.some((column) => column.name === 'dialect');
  const withoutKeyId = columns.length > 0 && !columns.some((column) => column.name === 'api_key_id');
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec('DROP INDEX IF EXISTS calls_by_agent_id; DROP INDEX IF EXISTS calls_by_trace_id;');
    db.exec('DROP INDEX IF EXISTS calls_by_workflow_name;');
    if (costNotNull) {
      db.exec('ALTER TABLE calls RENAME TO calls_before_costs');
      db.exec(TABLE);
      db.exec(`INSERT INTO calls (${FIRST_COLUMNS}) SELECT ${FIRST_COLUMNS} FROM calls_before_costs`);
      db.exec('DROP TABLE calls_before_costs');
    } else db.exec(TABLE);
    // Every call before dialects came through chat completions.
    if (withoutDialect && !costNotNull) db.exec("ALTER TABLE calls ADD COLUMN dialect TEXT NOT NULL DEFAULT 'chat'");
    if (withoutKeyId && !costNotNull) db.exec('ALTER TABLE calls ADD COLUMN api_key_id TEXT');
    if (withoutKeyId) db.exec(BACKFILL_KEY_IDS);
    db.exec(INDEXES);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** A record SQLite cannot read as JSON (none is written so) is left without a key id rather than failing the start. */
const BACKFILL_KEY_IDS = `UPDATE calls SET api_key_id = json_extract(record, '$.metadata.api_key_id')
  WHERE record LIKE '%"api_key_id"%' AND json_valid(record)`;

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
  'cost_input_usd',
  'cost_cache_read_usd',
  'cost_cache_write_usd',
  'cost_output_usd',
  'cost_reasoning_usd',
  'latency_ms',
  'record',
  'api_key_id',
] as const;

/** Replacing on a known id makes writing a batch twice harmless. */
export const INSERT = `INSERT OR REPLACE INTO calls (${COLUMNS.join(', ')})
  VALUES (${COLUMNS.map(() => '?').join(', ')})`;

export function rowOf(record: CallRecord): SQLInputValue[] {
  return [
    record.id,
    record.created_at,
    record.dialect ?? 'chat',
    record.agent_id,
    record.trace_id,
    record.workflow_name,
    record.deployment_id,
    record.requested_model,
    record.model,
    record.provider,
    record.status,
    record.stream ? 1 : 0,
    record.usage.prompt_tokens,
    record.usage.completion_tokens,
    record.usage.reasoning_tokens,
    record.usage.cached_tokens,
    record.usage.cache_write_tokens ?? 0,
    record.cost_usd,
    record.cost?.input ?? null,
    record.cost?.cache_read ?? null,
    record.cost?.cache_write ?? null,
    record.cost?.output ?? null,
    record.cost?.reasoning ?? null,
    record.latency_ms,
    recordJson(record),
    record.metadata?.api_key_id ?? null,
  ];
}

export const TIMING_COLUMNS = `id, created_at, dialect, agent_id, workflow_name, model, requested_model, status,
  cost_usd, latency_ms,
  prompt_tokens, completion_tokens`;

export type TimingRow = Omit<CallTiming, 'usage'> & { prompt_tokens: number; completion_tokens: number };

export function timingOfRow({ prompt_tokens, completion_tokens, ...row }: TimingRow): CallTiming {
  return { ...row, usage: { prompt_tokens, completion_tokens } };
}

export function parseRecord(row: Record<string, SQLInputValue>): CallRecord {
  return JSON.parse(row.record as string) as CallRecord;
}
