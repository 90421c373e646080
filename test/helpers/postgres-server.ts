import { execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';
import { pollUntil } from './poll.ts';

/**
 * A throwaway PostgreSQL server from Debian's `postgresql` package: a temporary data directory, a free loopback
 * port, fsync off; stopped and removed by `stop`. As root (CI), the server runs as the package's `postgres` user,
 * since PostgreSQL refuses to run as root. `url` is its `postgres` database, as the superuser `switchyard`.
 */
export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
  /** Stops the server, keeping its data (an outage); `restart` starts it again on the same port. */
  halt(): Promise<void>;
  restart(): Promise<void>;
}

const run = promisify(execFile);

export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const bin = version && join(root, version, 'bin');
  return bin && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

/** `settings` are extra `-c name=value` of the server. */
export async function startPostgresServer(bin: string, settings: Record<string, string> = {}): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
  // As root, initdb and postgres run as the package's postgres user (spawn's uid/gid), which owns the directory.
  const owner = process.getuid?.() === 0 ? await postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  await run('cp', ['-a', await templateData(bin, owner), data]);
  const port = await freePort();
  const flags = Object.entries({ fsync: 'off', ...settings }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const spawnServer = () =>
    spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, ...flags], {
      stdio: 'ignore',
      ...owner,
    });
  let server: ReturnType<typeof spawn> | undefined = spawnServer();
  const url = `postgres://switchyard@127.0.0.1:${port}/postgres`;
  await waitUntilReady(url);
  const halt = async () => {
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGINT');
    await exited;
    server = undefined;
  };
  return {
    url,
    halt,
    restart: async () => {
      server ??= spawnServer();
      await waitUntilReady(url);
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A data directory fresh from initdb, made once per PostgreSQL version and user (in the system's temporary
 * directory, shared by every run) and copied for each server: initdb takes a second, a copy a tenth of that. Made
 * aside and renamed into place, so a run never copies half of one; of two runs making it at once, one's is kept.
 */
async function templateData(bin: string, owner: { uid: number; gid: number } | undefined): Promise<string> {
  const template = join(tmpdir(), `switchyard-pg-template-${basename(dirname(bin))}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const staging = mkdtempSync(join(tmpdir(), 'switchyard-pg-initdb-'));
  try {
    if (owner) chownSync(staging, owner.uid, owner.gid);
    const data = join(staging, 'data');
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'switchyard', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
      ...owner,
    });
    try {
      renameSync(data, template);
    } catch (error) {
      if (!existsSync(join(template, 'PG_VERSION'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return template;
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run('id', ['-u', 'postgres']),
    run('id', ['-g', 'postgres']),
  ]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

async function waitUntilReady(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  await pollUntil(
    async () => {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
      } finally {
        await client.end().catch(() => {});
      }
    },
    30_000,
    25,
  );
}

/** One statement on the server as its superuser, on a connection of its own: the rows it returned. */
export async function asAdmin<Row extends object>(adminUrl: string, statement: string): Promise<Row[]> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return (await admin.query<Row>(statement)).rows;
  } finally {
    await admin.end();
  }
}
