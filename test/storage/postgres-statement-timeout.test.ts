import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/errors.ts';
import type { Builder } from '../../src/storage/kysely.ts';
import { PostgresEngine } from '../../src/storage/postgres-engine.ts';
import { column, defineSchema } from '../../src/storage/schema.ts';
import { startPostgres } from '../helpers/postgres.ts';

/**
 * A query the engine stopped waiting for stops in PostgreSQL too, by the longest any query is given at the latest:
 * `pg`'s `query_timeout` only stops the client waiting, and the server ran on without end (a slow summary asked again
 * and again piled up in the database). A query given longer (a summary) runs to its end; migrations (a lock wait, an
 * index build) are not cut by it.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: PostgreSQL statement timeouts (no PostgreSQL installed; CI installs it).');
afterAll(() => server?.stop());

const sleeping = (seconds: number) => (db: Builder) =>
  db.selectNoFrom(sql<string>`pg_sleep(${sql.lit(seconds)})::text`.as('slept'));

/** The queries of other sessions active for at least `forMs` whose text has `marker`. */
async function running(marker: string, forMs = 0): Promise<number> {
  const client = new pg.Client({ connectionString: server!.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND " +
        "pid <> pg_backend_pid() AND now() - query_start >= $2 * interval '1 millisecond'",
      [`%${marker}%`, forMs],
    );
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

/** Within `ms` no such query is left in the server (each sleeps far longer: one left running would show). */
const noneLeft = (marker: string, ms: number) => expect.poll(() => running(marker), { timeout: ms }).toBe(0);

describe.skipIf(!server)('PostgreSQL queries stop when the engine stops waiting', () => {
  it('a query past the timeout is cancelled in the server by the longest a query is given', async () => {
    const engine = new PostgresEngine(server!.url, { queryTimeoutMs: 300, longestQueryMs: 600 });
    try {
      const failed = await engine.run(sleeping(4.25)).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(StorageUnavailableError);
      await noneLeft('pg_sleep(4.25)', 1_500);
    } finally {
      await engine.close();
    }
  });

  it('a query abandoned well within the longest stops once the server sees its connection gone', async () => {
    // The longest a query is given stays 15 s: the connection the pool dropped on the client's timeout is what ends it
    // (PostgreSQL's client_connection_check_interval, 14 and later).
    const engine = new PostgresEngine(server!.url, { queryTimeoutMs: 300 });
    try {
      await expect(engine.run(sleeping(9.75))).rejects.toBeInstanceOf(StorageUnavailableError);
      await noneLeft('pg_sleep(9.75)', 3_000);
    } finally {
      await engine.close();
    }
  });

  it('a query given longer (a summary) runs to its end; none runs past the longest', async () => {
    const engine = new PostgresEngine(server!.url, { queryTimeoutMs: 300, longestQueryMs: 2_000, max: 1 });
    try {
      const { rows } = await engine.run(sleeping(0.6), undefined, { timeoutMs: 5_000 });
      expect(rows).toEqual([{ slept: '' }]);
      await expect(engine.run(sleeping(4.5))).rejects.toThrow();
      await noneLeft('pg_sleep(4.5)', 3_000);
    } finally {
      await engine.close();
    }
  });

  it('a migration waits for another replica’s migration longer than the query timeout', async () => {
    const holder = new pg.Client({ connectionString: server!.url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [0x5357_5944]);
    const engine = new PostgresEngine(server!.url, { queryTimeoutMs: 300 });
    try {
      const schema = defineSchema({
        name: 'statement_timeout_test',
        version: 1,
        tables: [{ name: 'waits', columns: { id: column.key({ notNull: true }) }, primaryKey: ['id'], indexes: [] }],
      });
      const ready = engine.ready(schema);
      // The migration has waited for the lock three times the query timeout.
      await expect.poll(() => running('pg_advisory_lock', 900), { timeout: 10_000 }).toBe(1);
      await holder.query('SELECT pg_advisory_unlock($1)', [0x5357_5944]);
      await expect(ready).resolves.toBeUndefined();
      const { rows } = await engine.run((db) => db.selectFrom('waits' as never).select(sql`count(*)`.as('n')));
      expect(rows).toHaveLength(1);
    } finally {
      await holder.end();
      await engine.close();
    }
  });
});
