import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { databasePath } from '../../src/server/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * Issue 26, item 3: `kill -9` of a replica under load loses at most the calls in flight. A real `switchyard serve`
 * on PostgreSQL (then on SQLite) is driven by 16 clients (one call in four streamed) and SIGKILLed twice: once as the
 * load stops, while answered calls' records wait in a batch and two calls are in flight, then mid-load. A replica
 * started on the same data directory replays what the killed ones had journaled, and every call that was answered (a
 * 200 and its whole body) must then be stored, once.
 */

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('PostgreSQL binaries not found: the replica kill test on PostgreSQL is skipped.');
let dataDir: string;
afterAll(() => postgres?.stop());

interface Replica {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  exited: Promise<NodeJS.Signals | number | null>;
}

async function startReplica(storageFlags: string[]): Promise<Replica> {
  const args = [cli, 'serve', '--mock', '--port', '0', '--data', dataDir, ...storageFlags];
  const child = spawn(node, args, { cwd: root });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    child.on('exit', (code, signal) => done(signal ?? code)),
  );
  await expect.poll(() => stderr, { timeout: 20_000 }).toContain('"msg":"listening"');
  const listening = stderr.split('\n').find((line) => line.includes('"msg":"listening"'))!;
  return { child, url: (JSON.parse(listening) as { url: string }).url, stderr: () => stderr, exited };
}

/** One call; its record id once the whole answer was read (a stream up to `[DONE]`), else `undefined`. */
async function call(url: string, key: string, index: number): Promise<string | undefined> {
  const stream = index % 4 === 0;
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-latest',
      messages: [{ role: 'user', content: `call ${index}` }],
      metadata: { agent_id: 'kill-test' },
      stream,
    }),
  });
  const body = await response.text();
  if (response.status !== 200 || (stream && !body.includes('data: [DONE]'))) return undefined;
  return response.headers.get('x-switchyard-call-id') ?? undefined;
}

/**
 * 16 clients calling until `stopAfter` calls were answered; then `atStop` (the SIGKILL, with calls in flight) and
 * the clients stop. Any whole answer counts, even one read after the kill (it left before). Returns the ids of the
 * answered calls and how many calls were started.
 */
async function load(replica: Replica, key: string, stopAfter: number, atStop: () => void) {
  const answered: string[] = [];
  let started = 0;
  let stopped = false;
  const client = async () => {
    while (!stopped) {
      const id = await call(replica.url, key, started++).catch(() => undefined);
      if (id) answered.push(id);
      if (answered.length >= stopAfter && !stopped) {
        stopped = true;
        atStop();
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, client));
  return { answered, started };
}

/** Mid-load: the SIGKILL lands wherever the replica is, 15 calls in flight. */
async function killMidLoad(replica: Replica, key: string, stopAfter: number) {
  const round = await load(replica, key, stopAfter, () => replica.child.kill('SIGKILL'));
  expect(await replica.exited).toBe('SIGKILL');
  return round;
}

/**
 * The batch case made certain: once the clients stop, two calls are left in flight (their bodies never end) and the
 * SIGKILL comes when `/v1/health` says answered calls' records wait in the queue (one more call until it does).
 */
async function killWhileRecordsWait(replica: Replica, key: string, stopAfter: number) {
  const round = await load(replica, key, stopAfter, () => {});
  for (const _ of [1, 2]) {
    const hanging = request(`${replica.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': '1000' },
    });
    hanging.on('error', () => undefined);
    hanging.write('{"model":');
  }
  for (;;) {
    const health = (await (await fetch(`${replica.url}/v1/health`)).json()) as { records: { queued: number } };
    if (health.records.queued > 0) break;
    const id = await call(replica.url, key, round.started++);
    if (id) round.answered.push(id);
  }
  replica.child.kill('SIGKILL');
  expect(await replica.exited).toBe('SIGKILL');
  return round;
}

/** Where the replicas keep their records, seen from the test: the serve flags, and which ids are stored. */
interface Storage {
  name: string;
  flags: string[];
  stored(ids: string[]): Promise<Set<string>>;
  count(): Promise<number>;
  close(): Promise<void>;
}

function postgresStorage(url: string): Storage {
  const pool = new pg.Pool({ connectionString: url });
  return {
    name: 'PostgreSQL',
    flags: ['--database', url],
    async stored(ids) {
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM switchyard_calls WHERE id = ANY($1)', [ids]);
      return new Set(rows.map((row) => row.id));
    },
    async count() {
      const { rows } = await pool.query<{ calls: string }>('SELECT count(*) AS calls FROM switchyard_calls');
      return Number(rows[0]!.calls);
    },
    close: () => pool.end(),
  };
}

function sqliteStorage(): Storage {
  const ids = () => {
    const db = new DatabaseSync(databasePath(dataDir), { readOnly: true });
    try {
      return (db.prepare('SELECT id FROM calls').all() as Array<{ id: string }>).map((row) => row.id);
    } finally {
      db.close();
    }
  };
  return {
    name: 'SQLite',
    flags: [],
    stored: async (wanted) => new Set(ids().filter((id) => wanted.includes(id))),
    count: async () => ids().length,
    close: async () => {},
  };
}

/** Two kills mid-load, then a replica on the same data directory; every answered call must be stored. */
async function killTwiceThenRestart(storage: Storage): Promise<void> {
  const { stdout } = await promisify(execFile)(node, [cli, 'keys', 'create', '--name', 'load', ...keyFlags(storage)], {
    cwd: root,
  });
  const key = stdout.trim();
  const answered: string[] = [];
  const notStoredAtKill: number[] = [];
  const restarted: Array<Awaited<ReturnType<typeof startReplica>>> = [];
  let started = 0;
  for (const [stopAfter, kill] of [
    [300, killWhileRecordsWait],
    [500, killMidLoad],
  ] as const) {
    const replica = await startReplica(storage.flags);
    restarted.push(replica);
    const round = await kill(replica, key, stopAfter);
    answered.push(...round.answered);
    started += round.started;
    // What the killed replica had answered but not yet written: without the journal, these would be lost.
    notStoredAtKill.push(round.answered.length - (await storage.stored(round.answered)).size);
  }
  const survivor = await startReplica(storage.flags);
  restarted.push(survivor);
  // Bounded only to catch a hang: the replay of what the kills left, then the survivor's own batches.
  let missing = answered.length;
  await vi
    .waitFor(
      async () => {
        missing = answered.length - (await storage.stored(answered)).size;
        if (missing > 0) throw new Error(`${missing} answered calls not stored yet`);
      },
      { timeout: 20_000, interval: 200 },
    )
    .catch(() => undefined);
  survivor.child.kill('SIGTERM');
  expect(await survivor.exited).toBe(0);
  const stored = await storage.count();
  console.log(
    `replica kill (${storage.name}): 2 × kill -9 under 16 clients, ${started} calls started, ` +
      `${answered.length} answered, ${notStoredAtKill.join(' + ')} answered but not stored at the kills, ` +
      `${missing} missing after the restart, ${stored} stored`,
  );
  expect(missing).toBe(0);
  // The replica started after the first kill replays what it left, the survivor what the second left: whichever
  // had something to replay says so (a second kill that landed after a flush leaves nothing for the survivor).
  const replayed = restarted.slice(1).filter((replica) => replica.stderr().includes(REPLAYING));
  expect(replayed.length).toBeGreaterThan(0);
  // Records of calls in flight at a kill may or may not be there; never more than the calls started.
  expect(stored).toBeGreaterThanOrEqual(answered.length);
  expect(stored).toBeLessThanOrEqual(started);
  // A kill landed while answered calls waited in a batch: the journal, not luck, kept them. The first kill is aimed
  // at that moment, but on a loaded machine a flush can slip in between the health check and the signal (CI saw
  // 0 + 29), so the two kills together must have caught some.
  expect(notStoredAtKill[0]! + notStoredAtKill[1]!).toBeGreaterThan(0);
  // Stopped cleanly, the survivor stored everything it journaled and left no file behind (but its machine's mark).
  const left = readdirSync(join(dataDir, 'record-journal')).filter((name) => !name.startsWith('alive@'));
  expect(left).toEqual([]);
}

const REPLAYING = 'replaying records a stopped process left';

/** `keys create` where the replicas look: PostgreSQL, or the data directory's SQLite file. */
const keyFlags = (storage: Storage) => (storage.flags.length > 0 ? storage.flags : ['--data', dataDir]);

describe('kill -9 of a replica under load', () => {
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchyard-replica-kill-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it.skipIf(!postgres)(
    'loses no answered call: all in PostgreSQL once a replica restarts on its data directory',
    async () => {
      const storage = postgresStorage(postgres!.url);
      try {
        await killTwiceThenRestart(storage);
      } finally {
        await storage.close();
      }
    },
    120_000,
  );

  it('loses no answered call on SQLite either: the journal covers the batch not yet written', async () => {
    await killTwiceThenRestart(sqliteStorage());
  }, 120_000);
});
