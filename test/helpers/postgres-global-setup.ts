import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { asAdmin, type PostgresServer, postgresBinaries, startPostgresServer } from './postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL server (its `postgres` database, as superuser), where `startPostgres()` makes databases. */
    postgresAdminUrl?: string;
  }
}

/**
 * vitest's globalSetup (issue 37): one throwaway PostgreSQL server for the whole run, where each file's
 * `startPostgres()` makes a database of its own, instead of a server per file (~700 postgres processes and 13 s of
 * `cp` a run). Started only where PostgreSQL is installed and a file of the run uses it: otherwise a file starts its
 * own, skips, or fails in CI, as before. Declared at the root of the config, it runs once, in the root project, whose
 * provided values both projects inherit (vitest does not copy a root `globalSetup` into `extends: true` projects).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const server = await startIfUsed(project);
  if (!server) return undefined;
  project.provide('postgresAdminUrl', server.url);
  return async () => {
    try {
      const left = await databasesLeft(server.url);
      if (left.length > 0) console.warn(`PostgreSQL databases no file's stop() dropped: ${left.join(', ')}`);
    } finally {
      await server.stop();
    }
  };
}

async function databasesLeft(adminUrl: string): Promise<string[]> {
  const rows = await asAdmin<{ datname: string }>(
    adminUrl,
    "SELECT datname FROM pg_database WHERE datname NOT IN ('postgres', 'template0', 'template1') ORDER BY 1",
  );
  return rows.map((row) => row.datname);
}

async function startIfUsed(project: TestProject): Promise<PostgresServer | undefined> {
  const bin = postgresBinaries();
  if (!bin || !usedByTheRun(project)) return undefined;
  // Several files' replicas and pools at once, where each file had a server, and its 100 connections, to itself.
  const maxConnections = 100 * Math.max(2, project.globalConfig.maxWorkers);
  return startPostgresServer(bin, { max_connections: String(maxConnections) });
}

/** Whether a file of the run calls the helper (a focused run of other files starts no server). */
function usedByTheRun(project: TestProject): boolean {
  const files = project.vitest.state.getPaths();
  if (files.length === 0) return true;
  return files.some((file) => readFileSync(file, 'utf8').includes('startPostgres('));
}
