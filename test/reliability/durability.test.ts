import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteSink } from '../../src/entries/stores.ts';
import { createGateway, DeploymentStoreError } from '../../src/index.ts';
import { type FakeDeploymentServer, startFakeDeploymentServer } from '../deployments/fake-deployment-server.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { bounded, guardUnhandledRejections } from './harness.ts';

/**
 * Durability: the SQLite sink loses no committed record and is never corrupted when its process is killed in the
 * middle of a write burst; gateway.close() writes every record still queued; and a remote deployment store keeps
 * serving its cache when the service is down, and says so.
 */

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
// Node 24 (the project's devDependency) runs the .ts child directly.
const node = join(root, 'node_modules/.bin/node');
const child = join(here, 'durability-child.ts');

guardUnhandledRejections();

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchyard-durability-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

/** Opens the database the way an operator would after a crash, and reads everything back. */
function inspectDatabase(path: string): {
  integrity: string;
  rows: number;
  parsed: number;
  rounds: Record<string, number>;
} {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const db = new DatabaseSync(path);
  try {
    const integrity = (db.prepare('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>)
      .map((row) => row.integrity_check)
      .join('; ');
    const records = db.prepare('SELECT id, agent_id, record FROM calls').all() as Array<{
      id: string;
      agent_id: string;
      record: string;
    }>;
    let parsed = 0;
    const rounds: Record<string, number> = {};
    for (const row of records) {
      const record = JSON.parse(row.record) as { id: string };
      if (record.id === row.id) parsed += 1;
      rounds[row.agent_id] = (rounds[row.agent_id] ?? 0) + 1;
    }
    return { integrity, rows: records.length, parsed, rounds };
  } finally {
    db.close();
  }
}

describe('SqliteSink: SIGKILL in the middle of a write burst', () => {
  it('leaves a database that passes integrity_check, every committed row readable, three kills in a row', async () => {
    const path = join(directory, 'burst.sqlite');
    const committedPerRound: number[] = [];
    let killedInsideATransaction = 0;
    const roundRows: number[] = [];
    for (let round = 0; round < 3; round++) {
      const process_ = spawn(node, [child, 'burst', path, String(round)], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      process_.stderr.on('data', (chunk) => (stderr += String(chunk)));
      const exited = new Promise<NodeJS.Signals | number | null>((done) =>
        process_.on('exit', (code, signal) => done(signal ?? code)),
      );
      // Kill at a different point each round, while batches keep coming.
      const killAt = 1_500 + round * 1_300;
      let committed = 0;
      let announced = 0;
      let last = '';
      await bounded(
        (async () => {
          // Read to the end, past the kill: the last line says whether the kill landed inside a transaction.
          for await (const line of createInterface({ input: process_.stdout })) {
            last = line;
            const match = /^(begin|committed) (\d+)$/.exec(line);
            if (match?.[1] === 'committed') committed = Number(match[2]);
            if (match?.[1] === 'begin') announced = Number(match[2]);
            // Killed just after it announced a batch: inside SqliteSink.write, most of the time inside the transaction.
            if (committed >= killAt && line.startsWith('begin') && !process_.killed) process_.kill('SIGKILL');
          }
        })(),
        30_000,
        `round ${round} of the write burst`,
      );
      expect(await bounded(exited, 10_000, 'the killed child'), stderr).toBe('SIGKILL');
      committedPerRound.push(committed);
      if (last.startsWith('begin')) killedInsideATransaction += 1;

      const after = inspectDatabase(path);
      expect(after.integrity).toBe('ok');
      expect(after.parsed).toBe(after.rows);
      // Every batch the child reported as committed is there (WAL: a commit survives the death of the process), and
      // the batch it was killed in is there whole or not at all.
      expect([committed, announced]).toContain(after.rounds[`round-${round}`] ?? 0);
      for (let previous = 0; previous < round; previous++)
        expect(after.rounds[`round-${previous}`]).toBe(roundRows[previous]);
      roundRows.push(after.rounds[`round-${round}`] ?? 0);
    }
    expect(killedInsideATransaction).toBeGreaterThanOrEqual(1);
    // The sink opens the recovered database and answers queries on it.
    const sink = new SqliteSink(path);
    const page = await sink.list({ agent_id: 'round-2', limit: 5 });
    expect(page.data).toHaveLength(5);
    sink.close();
    const final = inspectDatabase(path);
    console.log(
      `durability: 3 SIGKILLs (${killedInsideATransaction} inside a transaction), ${committedPerRound.join(' + ')} ` +
        `rows reported committed, ` +
        `${final.rows} rows found, integrity ${final.integrity}`,
    );
  }, 90_000);
});

describe('gateway.close() writes every queued record', () => {
  it('in a child process that exits right after close(): all of them, in SQLite and JSONL', async () => {
    const path = join(directory, 'close.sqlite');
    const jsonl = join(directory, 'close.jsonl');
    const calls = 400;
    const process_ = spawn(node, [child, 'close', path, jsonl, String(calls)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk) => (stdout += String(chunk)));
    process_.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const code = await bounded(new Promise((done) => process_.on('exit', done)), 30_000, 'the closing child');
    expect(code, stderr).toBe(0);
    const before = JSON.parse(/before-close (.*)/.exec(stdout)![1]!) as { queued: number; written: number };
    const after = JSON.parse(/after-close (.*)/.exec(stdout)![1]!) as {
      queued: number;
      written: number;
      dropped: number;
      failed: number;
    };
    // Everything was still queued when close() was called, and close() wrote it all.
    expect(before).toMatchObject({ queued: calls, written: 0 });
    expect(after).toEqual({
      queued: 0,
      written: calls,
      dropped: 0,
      failed: 0,
      build_failed: 0,
      last_loss_at: null,
      journal_writes: 0,
    });
    const database = inspectDatabase(path);
    expect(database).toMatchObject({ integrity: 'ok', rows: calls, parsed: calls });
    const lines = (await readFile(jsonl, 'utf8')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(calls);
    const statuses = lines.map((line) => (JSON.parse(line) as { status: string }).status);
    expect(statuses.filter((status) => status === 'error')).toHaveLength(calls / 10);
    console.log(
      `durability: close() wrote ${after.written} of ${before.queued} queued records (SQLite rows ${database.rows}, ` +
        `JSONL lines ${lines.length})`,
    );
  }, 60_000);

  it('in process: records of calls made after close() are dropped and counted, never thrown', async () => {
    const sink = new SqliteSink(join(directory, 'in-process.sqlite'));
    const gateway = createGateway({ mock: true, records: { sinks: [sink], flushIntervalMs: 600_000 } });
    await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        gateway.createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: `n${index}` }] }),
      ),
    );
    await gateway.close();
    expect(gateway.recordStats).toMatchObject({ written: 50, queued: 0 });
    // The sink is closed; a late call still answers, and its record is counted as dropped.
    const late = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: [{ role: 'user', content: 'late' }],
    });
    expect(late.choices[0]!.message.content).toContain('late');
    await gateway.flush();
    expect(gateway.recordStats).toMatchObject({ written: 50, dropped: 1 });
  });
});

describe('remote deployment store down: the cache is served, and the response says so', () => {
  const deployment = makeDeployment({ agent_id: 'support', number: 1 });
  const other = makeDeployment({ agent_id: 'support', number: 2 });
  const input = { product: 'Switchyard', ticket: 'It is down' };
  let server: FakeDeploymentServer;
  let front: Awaited<ReturnType<typeof startTcpFront>>;
  beforeAll(async () => {
    server = await startFakeDeploymentServer([deployment, other]);
    front = await startTcpFront(server.url);
  });
  afterAll(async () => {
    await front.down();
    await server.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('through createGateway({ deployments: url }): deployment_store_stale while down, gone once back', async () => {
    // Only Date is faked: the store's cache freshness follows Date.now(), sockets and timers stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    const gateway = createGateway({ mock: true, deployments: front.url, env: { SWITCHYARD_API_KEY: server.apiKey } });
    const call = () => bounded(gateway.createCompletion({ model: `switchyard/deployment/${deployment.id}`, input }));
    const codes = (response: Awaited<ReturnType<typeof call>>) =>
      response.switchyard.warnings.map((warning) => warning.code);

    const fresh = await call();
    expect(codes(fresh)).not.toContain('deployment_store_stale');
    expect(await bounded(gateway.listDeployments({ agent_id: 'support' }))).toHaveLength(2);

    // The service fails (503) after the cache went out of date (30 s TTL).
    server.failWith = 503;
    vi.setSystemTime(Date.now() + 31_000);
    const requestsBefore = server.requests.length;
    const stale = await call();
    expect(server.requests.length).toBe(requestsBefore + 1);
    expect(stale.switchyard.deployment_id).toBe(deployment.id);
    expect(stale.choices[0]!.message.content).toContain('It is down');
    expect(stale.switchyard.warnings).toContainEqual({
      code: 'deployment_store_stale',
      message: expect.stringContaining(deployment.id),
    });

    // A deployment that was never cached cannot be served: a typed 503 that names the store and its status.
    const missing = await bounded(
      gateway
        .createCompletion({ model: 'switchyard/deployment/support:staging#9', input })
        .catch((error: unknown) => error),
    );
    expect(missing).toBeInstanceOf(DeploymentStoreError);
    expect(missing).toMatchObject({ status: 503, code: 'deployment_store_unavailable', upstreamStatus: 503 });
    expect((missing as Error).message).toContain(front.url);
    expect((missing as Error).message).not.toContain(server.apiKey);

    // Then the service is unreachable altogether (its port refuses connections): still served, still flagged.
    server.failWith = undefined;
    await front.down();
    vi.setSystemTime(Date.now() + 6_000);
    const unreachable = await call();
    expect(codes(unreachable)).toContain('deployment_store_stale');
    // The listing too is served from its cache.
    expect(await bounded(gateway.listDeployments({ agent_id: 'support' }))).toHaveLength(2);

    // Back up: the next revalidation (after the 5 s pause that follows a failure) clears the flag.
    await front.up();
    vi.setSystemTime(Date.now() + 6_000);
    const recovered = await call();
    expect(codes(recovered)).not.toContain('deployment_store_stale');
  });
});

/**
 * A TCP front for a server: `down()` closes its port (connections are refused, open ones are cut), `up()` opens the
 * same port again. What a client sees of a service that goes away and comes back.
 */
async function startTcpFront(target: string): Promise<{ url: string; down(): Promise<void>; up(): Promise<void> }> {
  const { createServer, connect } = await import('node:net');
  const targetPort = Number(new URL(target).port);
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((socket) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on('close', () => sockets.delete(end));
      end.on('error', () => {
        socket.destroy();
        upstream.destroy();
      });
    }
    socket.pipe(upstream).pipe(socket);
  });
  const listen = (port: number) => new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  await listen(0);
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    down: async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    up: () => listen(port),
  };
}
