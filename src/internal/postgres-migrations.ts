import { StorageUnavailableError } from '../errors.ts';
import type { PostgresPool, PostgresResult } from './postgres-pool.ts';
import { redactSecrets } from './redact.ts';

/**
 * Pool settings that make an outage fail fast instead of hanging a request: a connection that does not open within
 * a second, or a query with no answer for `query_timeout`, is an error (`postgresError` calls it an outage). Spread
 * into every `pg` pool of the server: `new Pool({ connectionString, max: 4, ...FAIL_FAST_POOL })`.
 */
export const FAIL_FAST_POOL = { connectionTimeoutMillis: 1_000, query_timeout: 1_000 } as const;

/** Migrations may wait for another replica's (the lock) and rewrite a table: no short query timeout for them. */
const MIGRATION_QUERY_TIMEOUT_MS = 10 * 60_000;

/** The advisory lock migrations run under, so replicas starting together migrate once. */
const MIGRATION_LOCK = 0x5357_5944; // "SWYD"

/**
 * Applies the migrations of one part of the schema (`name`: calls, keys…) not yet applied, one transaction each,
 * under an advisory lock held for the session; applied versions are kept in `switchyard_migrations`.
 */
export async function migrate(
  pool: PostgresPool,
  name: string,
  migrations: ReadonlyArray<{ version: number; sql: string }>,
): Promise<void> {
  const client = await pool.connect();
  // pg reads a per-query `query_timeout`: the pool's short one would cut the lock's wait.
  const query = (text: string, values?: unknown[]) =>
    client.query({ text, values, query_timeout: MIGRATION_QUERY_TIMEOUT_MS });
  try {
    await query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await query(
      'CREATE TABLE IF NOT EXISTS switchyard_migrations (name TEXT NOT NULL, version INTEGER NOT NULL, ' +
        'applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (name, version))',
    );
    const versions = 'SELECT version FROM switchyard_migrations WHERE name = $1';
    const { rows } = (await query(versions, [name])) as PostgresResult<{ version: number }>;
    const applied = new Set(rows.map((row) => row.version));
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await query('BEGIN');
      try {
        await query(migration.sql);
        await query('INSERT INTO switchyard_migrations (name, version) VALUES ($1, $2)', [name, migration.version]);
        await query('COMMIT');
      } catch (error) {
        await query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

/** Errors of the connection, not of the query: the server is down, restarting, unreachable or out of resources. */
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
const OUTAGE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout)|not queryable/;

/** Whether a pg error says PostgreSQL cannot be reached (SQLSTATE 08…, 53…, 57P0…), not that a query is wrong. */
export function isPostgresOutage(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (OUTAGE_CODES.has(code) || /^(08|53|57P0)/.test(code))) return true;
  return typeof message === 'string' && OUTAGE_MESSAGES.test(message);
}

/**
 * pg's errors can quote the connection settings; re-raised with the message only (URL passwords redacted). An
 * outage becomes a `StorageUnavailableError` (503, `storage_unavailable`, component `postgres`) whose message says
 * nothing of the server's address; the detail stays in its `cause`, for the log.
 */
export function postgresError(error: unknown): Error {
  if (error instanceof StorageUnavailableError) return error;
  const message = redactSecrets(error instanceof Error ? error.message : String(error), []);
  const code = (error as { code?: unknown })?.code;
  const redacted = Object.assign(new Error(`PostgreSQL: ${message || code}`), { code });
  if (!isPostgresOutage(error)) return redacted;
  return new StorageUnavailableError('postgres', 'The database (PostgreSQL) is unavailable; retry shortly.', redacted);
}
