import { checkOut, type PostgresPool, type PostgresResult } from '../internal/postgres-pool.ts';
import { type ExistingTable, migrationOf } from './ddl.ts';
import { type SchemaSpec, tableName } from './schema.ts';

/**
 * Brings a schema's tables to their declarations in one transaction: made when missing; columns added (and filled)
 * and retired indexes dropped when an earlier version made them. SQLite reads its catalog on every open (a pragma
 * per table); PostgreSQL records each schema's version, under an advisory lock, so replicas migrate once.
 */
/** What migrating needs of a `node:sqlite` connection (this file imports nothing of Node: the memory engine's side). */
export interface SqliteConnection {
  exec(sql: string): void;
  prepare(sql: string): { all(...values: never[]): unknown[] };
  readonly isTransaction: boolean;
}

export function migrateSqlite(db: SqliteConnection, schema: SchemaSpec): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const table of schema.tables) {
      const info = db.prepare(`PRAGMA table_info(${table.name})`).all() as Array<{ name: string; notnull: number }>;
      const existing = info.length === 0 ? undefined : columnsOf(info.map((c) => [c.name, c.notnull === 1]));
      for (const statement of migrationOf('sqlite', table, existing)) db.exec(statement);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Migrations may wait for another replica's (the lock) and rewrite a table: no short query timeout for them. */
const MIGRATION_QUERY_TIMEOUT_MS = 10 * 60_000;
/** The advisory lock migrations run under, so replicas starting together migrate once. */
const MIGRATION_LOCK = 0x5357_5944; // "SWYD"

export async function migratePostgres(pool: PostgresPool, schema: SchemaSpec): Promise<void> {
  const client = await checkOut(pool);
  // pg reads a per-query `query_timeout`: the pool's short one would cut the lock's wait.
  const query = <Row>(text: string, values?: unknown[]) =>
    client.query({ text, values, query_timeout: MIGRATION_QUERY_TIMEOUT_MS }) as Promise<PostgresResult<Row>>;
  // The connection's statement_timeout would cut the lock's wait and an index's build in the server: raised for the
  // migration, then set back to what it was.
  let before: string | undefined;
  try {
    before = (await query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]?.statement_timeout;
    await query(`SET statement_timeout = ${MIGRATION_QUERY_TIMEOUT_MS}`);
    await query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await query(
      'CREATE TABLE IF NOT EXISTS switchyard_migrations (name TEXT NOT NULL, version INTEGER NOT NULL, ' +
        'applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (name, version))',
    );
    const applied = await query<{ version: number }>('SELECT version FROM switchyard_migrations WHERE name = $1', [
      schema.name,
    ]);
    const versions = new Set(applied.rows.map((row) => row.version));
    if (versions.has(schema.version)) return;
    await query('BEGIN');
    try {
      for (const table of schema.tables) {
        const { rows } = await query<{ name: string; nullable: string }>(
          'SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns ' +
            'WHERE table_schema = current_schema() AND table_name = $1',
          [tableName('postgres', table.name)],
        );
        const existing = rows.length === 0 ? undefined : columnsOf(rows.map((c) => [c.name, c.nullable === 'NO']));
        for (const statement of migrationOf('postgres', table, existing)) await query(statement);
      }
      for (let version = 1; version <= schema.version; version++)
        if (!versions.has(version))
          await query('INSERT INTO switchyard_migrations (name, version) VALUES ($1, $2)', [schema.name, version]);
      await query('COMMIT');
    } catch (error) {
      await query('ROLLBACK');
      throw error;
    }
  } finally {
    await query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    // A connection that cannot be set back is dropped rather than handed on with the migration's timeout.
    const setBack =
      before === undefined ||
      (await query("SELECT set_config('statement_timeout', $1, false)", [before]).then(
        () => undefined,
        (error: Error) => error,
      ));
    client.release(setBack);
  }
}

function columnsOf(columns: Array<[string, boolean]>): ExistingTable {
  return { columns: new Map(columns.map(([name, notNull]) => [name, { notNull }])) };
}
