import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/errors.ts';
import { isPostgresOutage, postgresError } from '../../src/internal/postgres-migrations.ts';
import { RecordsRefusedError } from '../../src/records/sink.ts';
import { PostgresSink } from '../../src/records/sinks/postgres-sink.ts';
import { startPostgres } from '../helpers/postgres.ts';
import { makeRecord } from '../records/make-record.ts';

/**
 * What counts as PostgreSQL being unavailable (a 503, records kept in the journal to replay) rather than a query
 * being wrong (its rows refused for good). A primary demoted to a read-only standby after a failover refuses every
 * write with 25006: that is the database unavailable for writing, not bad rows.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: PostgreSQL outages (no PostgreSQL installed; CI installs it).');
afterAll(() => server?.stop());

describe.skipIf(!server)('a PostgreSQL that only reads (a demoted primary)', () => {
  it('refuses a write as the database being unavailable, not as a wrong query', async () => {
    const client = new pg.Client({ connectionString: server!.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE IF NOT EXISTS outage_probe (id text)');
      await client.query('SET default_transaction_read_only = on');
      const refused = await client.query("INSERT INTO outage_probe VALUES ('x')").catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: '25006' });
      expect(postgresError(refused)).toBeInstanceOf(StorageUnavailableError);
    } finally {
      await client.end();
    }
  });
});

describe.skipIf(!server)('call records written to a PostgreSQL that only reads', () => {
  it('fail as the store being unavailable (kept by the journal to replay), not as rows refused for good', async () => {
    const first = new PostgresSink(server!.url);
    await first.write([makeRecord()]);
    await first.close();
    const database = new URL(server!.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: server!.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    const demoted = new PostgresSink(server!.url);
    try {
      const failed = await demoted.write([makeRecord(), makeRecord()]).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(StorageUnavailableError);
      expect(failed).not.toBeInstanceOf(RecordsRefusedError);
    } finally {
      await demoted.close();
      await admin.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
      await admin.end();
    }
  });
});

describe('errors of reaching PostgreSQL', () => {
  it('a name that does not resolve (yet: a container starting before its database) is an outage', () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN'])
      expect(isPostgresOutage({ code, message: 'getaddrinfo' })).toBe(true);
  });

  it('an I/O error or a cancelled query of the server is an outage; a wrong query is not', () => {
    expect(isPostgresOutage({ code: '58030', message: 'could not write' })).toBe(true);
    expect(isPostgresOutage({ code: '57014', message: 'canceling statement due to statement timeout' })).toBe(true);
    expect(isPostgresOutage({ code: '23505', message: 'duplicate key' })).toBe(false);
    expect(isPostgresOutage({ code: '42P01', message: 'relation does not exist' })).toBe(false);
  });
});
