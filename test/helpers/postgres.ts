import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { asAdmin, type PostgresServer, postgresBinaries, startPostgresServer } from './postgres-server.ts';

export { postgresBinaries } from './postgres-server.ts';

/**
 * A throwaway PostgreSQL for a test file. By default a fresh database on the run's one server (started by
 * `postgres-global-setup.ts`): `url` is that database, `stop` drops it. `{ own: true }` starts a server of the
 * file's own, for a test that stops it (`halt`, `restart`) or changes it as a whole; on a shared database `halt` and
 * `restart` reject, since they would stop every file's. Outside vitest (bench/), always a server of its own.
 * `undefined` when the binaries are missing and CI is not set (the caller skips and says so); in CI a missing
 * PostgreSQL is an error.
 */
export type ThrowawayPostgres = PostgresServer;

export async function startPostgres(options: { own?: boolean } = {}): Promise<ThrowawayPostgres | undefined> {
  const shared = options.own ? undefined : await sharedServer();
  if (shared) return createDatabase(shared.adminUrl, shared.file);
  const bin = postgresBinaries();
  if (!bin) {
    if (process.env.CI) throw new Error('PostgreSQL is required in CI (.ci/run installs the postgresql package).');
    return undefined;
  }
  return startPostgresServer(bin);
}

/** The run's server as the global setup provides it (none outside a vitest worker), and the calling test file. */
async function sharedServer(): Promise<{ adminUrl: string; file: string } | undefined> {
  if (!process.env.VITEST) return undefined;
  const { expect, inject } = await import('vitest');
  const adminUrl = inject('postgresAdminUrl');
  return adminUrl ? { adminUrl, file: basename(expect.getState().testPath ?? '') } : undefined;
}

/**
 * Named after the file, so a database left behind says whose it is. Copied from template1 by WAL_LOG, PostgreSQL's
 * default: FILE_COPY or template0 were no faster.
 */
async function createDatabase(adminUrl: string, file: string): Promise<ThrowawayPostgres> {
  const slug = file
    .replace(/\.test\.ts$/, '')
    .replace(/[^a-z0-9]+/gi, '_')
    .toLowerCase()
    .slice(0, 40);
  const name = `${slug}_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const wholeServer = () =>
    Promise.reject(new Error('halt and restart would stop the server every file shares: startPostgres({ own: true })'));
  return {
    url: url.href,
    halt: wholeServer,
    restart: wholeServer,
    // FORCE: connections a test left open (a killed replica's, a pool not ended) do not keep the database.
    stop: async () => {
      await asAdmin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
