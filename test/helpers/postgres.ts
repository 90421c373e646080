import { type PostgresServer, postgresBinaries, startPostgresServer } from './postgres-server.ts';

export { freePort, postgresBinaries } from './postgres-server.ts';

/**
 * A throwaway PostgreSQL server (postgres-server.ts). `undefined` when the binaries are missing and CI is not set
 * (the caller skips and says so); in CI a missing PostgreSQL is an error.
 */
export type ThrowawayPostgres = PostgresServer;

export async function startPostgres(): Promise<ThrowawayPostgres | undefined> {
  const bin = postgresBinaries();
  if (!bin) {
    if (process.env.CI) throw new Error('PostgreSQL is required in CI (.ci/run installs the postgresql package).');
    return undefined;
  }
  return startPostgresServer(bin);
}
