import type { SQLInputValue } from 'node:sqlite';
import type { CallRecord } from '../call-record.ts';
import type { CallTiming } from '../call-store.ts';

/** The `calls` table of `SqliteSink`: its schema and migrations, and how a record becomes a row and back. */

/**
 * The queryable fields get columns; `record` holds the whole record as JSON, so no field is ever lost. The agent,
 * trace and workflow indexes are partial: a call without one (most calls have no trace) costs no entry there, and
 * `x = ?` still uses them. Each index entry is ~8 µs of a row's ~15–40 µs insert. Databases made with the earlier
 * full indexes are migrated when opened.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS calls (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
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
  cost_usd REAL NOT NULL,
  latency_ms REAL NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_by_created_at ON calls (created_at, id);
DROP INDEX IF EXISTS calls_by_agent_id;
DROP INDEX IF EXISTS calls_by_trace_id;
DROP INDEX IF EXISTS calls_by_workflow_name;
CREATE INDEX IF NOT EXISTS calls_with_agent_id ON calls (agent_id, created_at, id) WHERE agent_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_with_trace_id ON calls (trace_id, created_at, id) WHERE trace_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_with_workflow_name ON calls (workflow_name, created_at, id)
  WHERE workflow_name IS NOT NULL;
`;

export const COLUMNS = [
  'id',
  'created_at',
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
  'cost_usd',
  'latency_ms',
  'record',
] as const;

/** Replacing on a known id makes writing a batch twice harmless. */
export const INSERT = `INSERT OR REPLACE INTO calls (${COLUMNS.join(', ')})
  VALUES (${COLUMNS.map(() => '?').join(', ')})`;

export function rowOf(record: CallRecord): SQLInputValue[] {
  return [
    record.id,
    record.created_at,
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
    record.cost_usd,
    record.latency_ms,
    JSON.stringify(record),
  ];
}

export const TIMING_COLUMNS = `id, created_at, agent_id, workflow_name, model, requested_model, status,
  cost_usd, latency_ms,
  prompt_tokens, completion_tokens`;

export type TimingRow = Omit<CallTiming, 'usage'> & { prompt_tokens: number; completion_tokens: number };

export function timingOfRow({ prompt_tokens, completion_tokens, ...row }: TimingRow): CallTiming {
  return { ...row, usage: { prompt_tokens, completion_tokens } };
}

export function parseRecord(row: Record<string, SQLInputValue>): CallRecord {
  return JSON.parse(row.record as string) as CallRecord;
}
