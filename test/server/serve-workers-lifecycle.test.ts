import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocatorEnvironment } from '../../src/cli/serve-process.ts';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { databasePath } from '../../src/server/index.ts';
import { freshClient, healthOf, type ServedCluster, serveCluster } from '../helpers/serve-workers.ts';

/**
 * Issue 41, item 3: `serve --workers 2` lives as one server. The real CLI before an OpenAI-shaped provider, driven
 * by the official SDK: 200 answered calls are 200 records in the shared SQLite file (one worker killed with -9 after
 * answering its share: its replacement replays what it left); the killed worker is replaced and the port answers
 * meanwhile; SIGTERM to the primary lets a stream in flight finish, then every process exits.
 */
function chunk(delta: Record<string, unknown>, finish: string | null = null, usage?: unknown): string {
  const body = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18' };
  const choices = usage ? [] : [{ index: 0, delta, finish_reason: finish, logprobs: null }];
  return `data: ${JSON.stringify({ ...body, choices, ...(usage ? { usage } : {}) })}\n\n`;
}
function completion(): string {
  return JSON.stringify({
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
  });
}

let provider: ReturnType<typeof createServer>;
/** Streams asked to `hold`: their first chunks sent, the rest when the test says. */
const held: ServerResponse[] = [];
let heldArrived: () => void = () => undefined;
let dataDir: string;
let key = '';
let server: ServedCluster;

beforeAll(async () => {
  provider = createServer((request, response) => {
    let body = '';
    request.on('data', (part) => (body += String(part)));
    request.on('end', () => {
      if (!body.includes('"stream":true')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(completion());
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', content: '' }));
      response.write(chunk({ content: 'Partial ' }));
      held.push(response);
      heldArrived();
    });
  });
  await new Promise<void>((done) => provider.listen(0, '127.0.0.1', done));
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-workers-life-'));
  const keys = new ApiKeyStore(databasePath(dataDir));
  key = (await keys.create('workers')).key;
  keys.close();
  const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  const env = { ...process.env, OPENAI_API_KEY: 'sk-test-workers', OPENAI_BASE_URL: providerUrl };
  server = await serveCluster(['--workers', '2', '--data', dataDir], env);
}, 60_000);
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  for (const response of held) response.destroy();
  await new Promise((done) => provider.close(done));
  rmSync(dataDir, { recursive: true, force: true });
});

/** Records of the agent in the shared data file, read as another process would. */
function recordsOf(agent: string): number {
  const db = new DatabaseSync(databasePath(dataDir), { readOnly: true });
  try {
    return (db.prepare('SELECT count(*) AS count FROM calls WHERE agent_id = ?').get(agent) as { count: number }).count;
  } finally {
    db.close();
  }
}

describe('serve --workers 2, living and stopping', () => {
  it.runIf(existsSync('/proc/self/environ') && process.execve)(
    "each worker runs with the primary's memory bounds (its young generation's size) and allocator",
    async () => {
      const { pid } = await workerNamed(1);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=8');
      // jemalloc where the system has it (always in CI: .ci/run installs it), as the primary.
      if (allocatorEnvironment({}) || process.env.CI)
        expect(readFileSync(`/proc/${pid}/maps`, 'utf8')).toContain('libjemalloc');
    },
  );

  it('200 answered calls are 200 records, even with a worker killed (-9) before it stored its share', async () => {
    const workers = new Set<string | null>();
    for (let batch = 0; batch < 20; batch++)
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const { response } = await freshClient(server.url, key)
            .chat.completions.create({
              model: 'gpt-4o-mini',
              messages: [{ role: 'user', content: 'hi' }],
              metadata: { agent_id: 'two-hundred' },
            })
            .withResponse();
          expect(response.status).toBe(200);
          workers.add(response.headers.get('x-switchyard-worker'));
        }),
      );
    expect(workers).toEqual(new Set(['1', '2']));

    // Worker 1 killed at once: its records still queued are in its journal, replayed by its replacement.
    const { pid } = await workerNamed(1);
    process.kill(pid, 'SIGKILL');
    // No connection stalls meanwhile: one the kernel had queued for the dying worker is reset at once (node:cluster's
    // round robin held such a connection forever), the others are answered by the worker alive.
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, async () => {
        try {
          const signal = AbortSignal.timeout(5_000);
          return String((await fetch(`${server.url}/v1/health`, { headers: { connection: 'close' }, signal })).status);
        } catch (error) {
          return String((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name);
        }
      }),
    );
    for (const outcome of outcomes) expect(['200', 'ECONNRESET']).toContain(outcome);
    // Once the primary saw it go, every new connection is answered.
    await expect.poll(() => server.stderr(), { timeout: 5_000 }).toContain('"msg":"worker exited; replacing it"');
    for (let index = 0; index < 4; index++)
      expect((await fetch(`${server.url}/v1/health`, { headers: { connection: 'close' } })).status).toBe(200);
    await expect.poll(() => server.stderr(), { timeout: 15_000 }).toContain('"msg":"worker replaced"');
    const replaced = await workerNamed(1);
    expect(replaced.pid).not.toBe(pid);
    expect(server.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'worker exited; replacing it', worker: 1, signal: 'SIGKILL' }),
    );
    await expect.poll(() => recordsOf('two-hundred'), { timeout: 10_000 }).toBe(200);
  });

  it('a worker that keeps dying soon after its start is replaced after longer and longer waits', async () => {
    const replacedLines = () => server.lines().filter((line) => line.msg === 'worker replaced' && line.worker === 2);
    for (let kill = 1; kill <= 3; kill++) {
      const before = replacedLines().length;
      process.kill((await workerNamed(2)).pid, 'SIGKILL');
      await expect.poll(() => replacedLines().length, { timeout: 15_000 }).toBe(before + 1);
    }
    const waits = server
      .lines()
      .filter((line) => line.msg === 'worker exited; replacing it' && line.worker === 2)
      .map((line) => line.replace_in_ms as number);
    expect(waits).toHaveLength(3);
    expect([...waits].sort((a, b) => a - b)).toEqual(waits);
    expect(waits[2]).toBeGreaterThanOrEqual(1_000);
  });

  it('SIGTERM to the primary lets a stream in flight finish, then every process exits', async () => {
    const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
    const stream = await new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: key,
      maxRetries: 0,
    }).chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'a long answer' }],
      metadata: { agent_id: 'drained' },
    });
    await arrived;
    const reading = (async () => {
      let text = '';
      let finish: string | null | undefined;
      for await (const part of stream) {
        text += part.choices[0]?.delta.content ?? '';
        finish = part.choices[0]?.finish_reason ?? finish;
      }
      return { text, finish };
    })();
    server.child.kill('SIGTERM');
    await expect.poll(() => server.stderr()).toContain('"msg":"shutting down"');
    // The provider finishes the stream only now, while every worker drains.
    const response = held.pop()!;
    response.write(chunk({ content: 'and the rest.' }));
    response.write(chunk({}, 'stop'));
    response.write(chunk({}, null, { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 }));
    response.end('data: [DONE]\n\n');
    expect(await reading).toEqual({ text: 'Partial and the rest.', finish: 'stop' });
    expect(await server.exited).toBe(0);
    const stopped = server.lines().filter((line) => line.msg === 'stopped');
    expect(stopped.map((line) => line.worker ?? 'primary').sort()).toEqual([1, 2, 'primary']);
    expect(recordsOf('drained')).toBe(1);
    expect(recordsOf('two-hundred')).toBe(200);
  });
});

/** A process's state as `ps` gives it (`R`, `S`, `T` when stopped, `Z` a zombie), or `gone`. */
function stateOf(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return 'gone';
  }
}

/** The pid of worker `id`, asked of `GET /v1/health` on new connections until that worker answers. */
async function workerNamed(id: number): Promise<{ id: number; pid: number }> {
  for (let asked = 0; asked < 50; asked++) {
    const { worker } = await healthOf(server.url);
    if (worker.id === id) return worker;
  }
  throw new Error(`worker ${id} never answered GET /v1/health`);
}

describe('serve --workers 2, stopped while it replaces a worker', () => {
  it('SIGTERM while a replacement starts: the replacement stops too, and the primary exits', async () => {
    const own = mkdtempSync(join(tmpdir(), 'switchyard-workers-stop-'));
    const served = await serveCluster(['--workers', '2', '--mock', '--data', own]);
    try {
      const { worker } = await healthOf(served.url);
      process.kill(worker.pid, 'SIGKILL');
      // The replacement is forked at once; the order to stop reaches it before it listens.
      await expect.poll(() => served.stderr()).toContain('"msg":"worker exited; replacing it"');
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
      const shutdown = served.lines().findIndex((line) => line.msg === 'shutting down');
      expect(
        served
          .lines()
          .slice(shutdown)
          .map((line) => line.msg),
      ).not.toContain('worker replaced');
      // No worker outlived its primary.
      expect(() => execFileSync('pgrep', ['-f', own])).toThrow();
    } finally {
      served.child.kill('SIGKILL');
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('serve --workers 2, with a worker that hangs', () => {
  it('a second SIGTERM ends every process within 10 s, however stuck a worker is', { timeout: 40_000 }, async () => {
    const own = mkdtempSync(join(tmpdir(), 'switchyard-workers-hung-'));
    const served = await serveCluster(['--workers', '2', '--mock', '--data', own]);
    try {
      const { worker } = await healthOf(served.url);
      // Stuck (a loop that never yields, a store that never answers): it hears no order to stop.
      process.kill(worker.pid, 'SIGSTOP');
      served.child.kill('SIGTERM');
      await expect.poll(() => served.stderr()).toContain('"msg":"shutting down"');
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(130);
      // Killed: gone, or a zombie for as long as nothing reaps it (this machine's init does not).
      await expect.poll(() => stateOf(worker.pid)).toMatch(/^(gone|Z)/);
    } finally {
      served.child.kill('SIGKILL');
      rmSync(own, { recursive: true, force: true });
    }
  });
});
