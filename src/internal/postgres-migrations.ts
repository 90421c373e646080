import type { Pool } from 'pg';
import { redactSecrets } from './redact.ts';

/** The advisory lock migrations run under, so replicas starting together migrate once. */
const MIGRATION_LOCK = 0x5357_5944; // "SWYD"

/**
 * Applies the migrations of one part of the schema (`name`: calls, keys…) not yet applied, one transaction each,
 * under an advisory lock held for the session; applied versions are kept in `switchyard_migrations`.
 */
export async function migrate(
  pool: Pool,
  name: string,
  migrations: ReadonlyArray<{ version: number; sql: string }>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS switchyard_migrations (name TEXT NOT NULL, version INTEGER NOT NULL, ' +
        'applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (name, version))',
    );
    const { rows } = await client.query('SELECT version FROM switchyard_migrations WHERE name = $1', [name]);
    const applied = new Set(rows.map((row: { version: number }) => row.version));
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO switchyard_migrations (name, version) VALUES ($1, $2)', [
          name,
          migration.version,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

/** pg's errors can quote the connection settings; re-raised with the message only (URL passwords redacted). */
export function postgresError(error: unknown): Error {
  const message = redactSecrets(error instanceof Error ? error.message : String(error), []);
  return Object.assign(new Error(`PostgreSQL: ${message}`), { code: (error as { code?: unknown })?.code });
}
