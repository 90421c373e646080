import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServeOptions, startServer } from '../../src/server/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';

/**
 * Issue 37, item 4: `serve` is composed of named parts and closes them with one teardown, in reverse order, whether
 * the start fails half-way or the server stops. A start that failed after its stores were open left them open (the
 * SQLite file's connections, PostgreSQL's pools), and one that failed after listening kept the port: a library user
 * retrying the start, or a process expected to exit, was stuck with them.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
const redis: ThrowawayRedis | undefined = await startRedis();
if (!postgres || !redis) console.warn('SKIPPED: the teardown tests with PostgreSQL and Redis (not installed).');
const dirs: string[] = [];
afterAll(async () => {
  await postgres?.stop();
  await redis?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'switchyard-teardown-')));
  dirs.push(dir);
  return dir;
}

/** Files of `dir` this process holds open (its SQLite file, WAL, journal segments), from Linux's /proc. */
function openFilesUnder(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) held.push(target);
    } catch {
      // Closed between the listing and the look.
    }
  }
  return held;
}

/** A redis:// URL where nothing listens. */
async function unreachableRedis(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}

/** Whether something accepts connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection(port);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

describe.skipIf(process.platform !== 'linux')('a start that fails half-way, in process', () => {
  it('after every store opened (--cache redis without Redis): closes the SQLite file and the journal', async () => {
    const dir = dataDir();
    const start = startServer({ mock: true, port: 0, dataDir: dir, cache: { store: 'redis' }, log: () => undefined });
    await expect(start).rejects.toThrow(/--redis/);
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('at listen (the port taken): closes the stores and the gateway', async () => {
    const taken: Server = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as { port: number };
    const dir = dataDir();
    try {
      const start = startServer({ mock: true, port, dataDir: dir, log: () => undefined });
      await expect(start).rejects.toThrow(/EADDRINUSE/);
      expect(openFilesUnder(dir)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('after listening (the log fails): lets the port go and closes everything else', async () => {
    const dir = dataDir();
    let port = 0;
    const log = (line: Record<string, unknown>) => {
      if (line.msg === 'listening') port = Number(new URL(String(line.url)).port);
      if (line.msg === 'configuration') throw new Error('the log is broken');
    };
    await expect(startServer({ mock: true, port: 0, dataDir: dir, log })).rejects.toThrow('the log is broken');
    expect(port).toBeGreaterThan(0);
    expect(await accepts(port)).toBe(false);
    expect(openFilesUnder(dir)).toEqual([]);
  });
});

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const child = join(root, 'test/helpers/serve-child.ts');

interface ChildOutcome {
  error?: string;
  lines: Array<Record<string, unknown>>;
  resources: string[];
}

/** `startServer` in a child process (serve-child.ts): what it threw, logged, and left open once it was done. */
async function inChild(options: ServeOptions): Promise<ChildOutcome> {
  const { stdout } = await promisify(execFile)(node, [child, JSON.stringify(options)], { cwd: root, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildOutcome;
}

describe.skipIf(!postgres || !redis)('the process can exit: everything opened is closed', () => {
  it('Redis unreachable after PostgreSQL opened', async () => {
    const outcome = await inChild({
      mock: true,
      port: 0,
      dataDir: dataDir(),
      database: postgres!.url,
      redis: await unreachableRedis(),
      redisWaitMs: 0,
    });
    expect(outcome.error).toMatch(/^Redis could not be reached after 1 attempt/);
    expect(outcome.resources).toEqual([]);
  });

  it("after PostgreSQL's stores opened (--cache redis without --redis)", async () => {
    const outcome = await inChild({
      mock: true,
      port: 0,
      dataDir: dataDir(),
      database: postgres!.url,
      cache: { store: 'redis' },
    });
    expect(outcome.error).toMatch(/--redis/);
    expect(outcome.resources).toEqual([]);
  });

  it('a server on PostgreSQL and Redis that started and stopped', async () => {
    const outcome = await inChild({
      mock: true,
      port: 0,
      dataDir: dataDir(),
      database: postgres!.url,
      redis: redis!.url,
      cache: { store: 'redis' },
      requestsPerMinutePerKey: 100,
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.resources).toEqual([]);
    // Redis's closing is the server's own: not an outage.
    expect(outcome.lines.filter((line) => line.level !== 'info')).toEqual([]);
    expect(outcome.lines.at(-1)).toMatchObject({ msg: 'stopped' });
  });
});
