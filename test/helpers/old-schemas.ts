import type { PostgresPool } from '../../src/internal/postgres-pool.ts';

/**
 * PostgreSQL schemas as earlier versions made them (their first migrations, copied from the code that ran them):
 * tests start a database as it was and check that today's stores migrate and read it.
 */
export const FIRST_POSTGRES_SCHEMAS = {
  calls: `
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
  experiments: `
CREATE TABLE switchyard_experiments (
  id TEXT COLLATE "C" PRIMARY KEY,
  agent_id TEXT NOT NULL,
  author TEXT,
  created_at TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX switchyard_experiments_by_agent ON switchyard_experiments (agent_id, id);
CREATE TABLE switchyard_experiment_versions (
  experiment_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE TABLE switchyard_experiment_inputs (
  experiment_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE TABLE switchyard_experiment_cells (
  experiment_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE INDEX switchyard_experiment_cells_by_key ON switchyard_experiment_cells (key, updated_at)
  WHERE status = 'completed';`,
} as const;

/** A database with a schema's first version, recorded as applied, as the earlier version left it. */
export async function makeFirstVersion(pool: PostgresPool, name: keyof typeof FIRST_POSTGRES_SCHEMAS): Promise<void> {
  await pool.query(
    'CREATE TABLE IF NOT EXISTS switchyard_migrations (name TEXT NOT NULL, version INTEGER NOT NULL, ' +
      'applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (name, version))',
  );
  await pool.query(FIRST_POSTGRES_SCHEMAS[name]);
  await pool.query('INSERT INTO switchyard_migrations (name, version) VALUES ($1, 1)', [name]);
}
