import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { databasePath } from '../../src/server/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { cli, freshClient, healthOf, node, type ServedCluster, serveCluster } from '../helpers/serve-workers.ts';

/**
 * Issue 41, item 3: `serve --workers 2` behaves as one server. The real CLI, two workers on one port, driven over
 * HTTP by the official SDK, each call on a new connection so that the kernel spreads them over both workers
 * (`x-switchyard-worker` says which answered): the rate limit counted once for both (a worker counting alone would
 * let all 80 calls through, 40 each under its own 60), and a key revoked by another process refused by both.
 */
let dataDir: string;
let server: ServedCluster;
type KeyName = 'rate' | 'revoked' | 'budget' | 'inflight' | 'deploy' | 'own' | 'admin';
const keys: Record<KeyName, { key: string; id: string }> = {} as never;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-workers-limits-'));
  const store = new ApiKeyStore(databasePath(dataDir));
  for (const name of ['rate', 'revoked', 'budget', 'inflight', 'deploy', 'own', 'admin'] as const) {
    const { key, info } = await store.create(name);
    keys[name] = { key, id: info.id };
  }
  // Issue 40's limits of a key's own, beside the server's: counted by the primary as the server's are.
  await store.updateLimits(keys.own.id, { requests_per_minute: 20, max_in_flight: 3 });
  store.close();
  const limits = ['--rate-limit', '60', '--max-concurrent-per-key', '6', '--budget', 'trace:0.0001'];
  server = await serveCluster(['--workers', '2', '--mock', '--data', dataDir, ...limits]);
}, 60_000);
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** One chat call on a new connection: its status, the worker that answered, and what it cost. */
async function call(
  apiKey: string,
  metadata: Record<string, string> = {},
): Promise<{ status: number; worker: string | null; cost: number; code?: string | undefined }> {
  try {
    const { data, response } = await freshClient(server.url, apiKey)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], metadata })
      .withResponse();
    const cost = (data as unknown as { switchyard: { cost_usd: number } }).switchyard.cost_usd;
    return { status: response.status, worker: response.headers.get('x-switchyard-worker'), cost };
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    const worker = error.headers?.get('x-switchyard-worker') ?? null;
    return { status: error.status ?? 0, worker, cost: 0, code: error.code ?? undefined };
  }
}

describe('serve --workers 2', () => {
  it('writes one start summary, and GET /v1/health names the worker that answered', async () => {
    const answered = new Set<number>();
    // The kernel spreads new connections over the workers' sockets: asked until both answered (bounded).
    for (let index = 0; index < 40 && answered.size < 2; index++) answered.add((await healthOf(server.url)).worker.id);
    expect([...answered].sort()).toEqual([1, 2]);
    const starts = server.lines().filter((line) => line.msg === 'listening' || line.msg === 'configuration');
    expect(starts.map((line) => line.msg)).toEqual(['listening', 'configuration']);
    expect(starts[0]).toMatchObject({ workers: 2 });
    expect(starts[1]).toMatchObject({ stores: { counters: 'primary' } });
  });

  it('counts a 60-a-minute key once for both workers: 59 to 61 of 80 fast calls pass', async () => {
    const results: Array<{ status: number; worker: string | null }> = [];
    // Four at a time (under the key's 6 in flight): fast, on as many connections as calls.
    for (let batch = 0; batch < 20; batch++)
      results.push(...(await Promise.all(Array.from({ length: 4 }, () => call(keys.rate.key)))));
    const passed = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 429);
    console.log(`rate limit across two workers: ${passed.length} of 80 calls passed (limit 60 a minute)`);
    expect(passed.length + refused.length).toBe(80);
    expect(passed.length).toBeGreaterThanOrEqual(59);
    expect(passed.length).toBeLessThanOrEqual(61);
    // Both workers answered and refused: the count was shared, not split.
    expect(new Set(passed.map((result) => result.worker))).toEqual(new Set(['1', '2']));
    expect(new Set(refused.map((result) => result.worker))).toEqual(new Set(['1', '2']));
  });

  it("counts a key's own 20 a minute once for both workers, and GET /v1/keys shows it used from either", async () => {
    const results: Array<{ status: number; worker: string | null; code?: string | undefined }> = [];
    // Three at a time: the key's own in-flight limit, counted by the primary too.
    for (let batch = 0; batch < 10; batch++)
      results.push(...(await Promise.all(Array.from({ length: 3 }, () => call(keys.own.key)))));
    const passed = results.filter((result) => result.status === 200);
    console.log(`a key's own rate across two workers: ${passed.length} of 30 calls passed (its limit 20 a minute)`);
    expect(results.filter((result) => result.status === 429).length).toBe(30 - passed.length);
    // Each batch starts once the last one's answers are in: their slots are free by then, on either worker.
    expect(results.filter((result) => result.code === 'concurrency_limit_exceeded')).toEqual([]);
    expect(passed.length).toBeGreaterThanOrEqual(19);
    expect(passed.length).toBeLessThanOrEqual(21);
    expect(new Set(passed.map((result) => result.worker))).toEqual(new Set(['1', '2']));
    const seenBy = new Map<string | null, number>();
    for (let index = 0; index < 40 && seenBy.size < 2; index++) {
      const response = await fetch(`${server.url}/v1/keys`, {
        headers: { authorization: `Bearer ${keys.admin.key}`, connection: 'close' },
      });
      const { data } = (await response.json()) as {
        data: Array<{ id: string; usage: { requests_per_minute: { limit: number; remaining: number } } }>;
      };
      const own = data.find((entry) => entry.id === keys.own.id)!;
      seenBy.set(response.headers.get('x-switchyard-worker'), own.usage.requests_per_minute.remaining);
    }
    // Both workers read the one bucket: nearly empty (it refills by one every 3 s).
    expect([...seenBy.keys()].sort()).toEqual(['1', '2']);
    for (const remaining of seenBy.values()) expect(remaining).toBeLessThanOrEqual(2);
  });

  it('a key revoked by another process is refused by every worker within 1.5 s', async () => {
    // Both workers have checked (and trust for a moment) the key before it is revoked.
    const trusted = new Set<string | null>();
    for (let index = 0; index < 40 && trusted.size < 2; index++) {
      const { status, worker } = await call(keys.revoked.key);
      expect(status).toBe(200);
      trusted.add(worker);
    }
    expect(trusted).toEqual(new Set(['1', '2']));
    await promisify(execFile)(node, [cli, 'keys', 'revoke', keys.revoked.id, '--data', dataDir]);
    const refusedBy = new Set<string | null>();
    await expect
      .poll(
        async () => {
          const { status, worker } = await call(keys.revoked.key);
          if (status === 401) refusedBy.add(worker);
          return [...refusedBy].sort();
        },
        { timeout: 1_500, interval: 20 },
      )
      .toEqual(['1', '2']);
    // Refused from then on, by either.
    for (let index = 0; index < 4; index++) expect((await call(keys.revoked.key)).status).toBe(401);
  });

  it("counts a trace's budget once for both workers: calls pass only while what it spent is under it", async () => {
    const results: Array<{ status: number; worker: string | null; cost: number }> = [];
    for (let index = 0; index < 24; index++) results.push(await call(keys.budget.key, { trace_id: 'one-budget' }));
    const passed = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 402);
    expect(passed.length + refused.length).toBe(24);
    // One after another: each admitted while the trace had spent less than $0.0001, none after.
    const spentBeforeLast = passed.slice(0, -1).reduce((total, result) => total + result.cost, 0);
    expect(spentBeforeLast).toBeLessThan(0.0001);
    expect(spentBeforeLast + passed.at(-1)!.cost).toBeGreaterThanOrEqual(0.0001);
    expect(results.findIndex((result) => result.status === 402)).toBe(passed.length);
    expect(new Set(passed.map((result) => result.worker))).toEqual(new Set(['1', '2']));
    expect(new Set(refused.map((result) => result.worker))).toEqual(new Set(['1', '2']));
  });

  it("counts a key's requests in flight once for both workers", async () => {
    // Six requests whose bodies never end hold the key's six slots, wherever the kernel sent them.
    const hanging = Array.from({ length: 6 }, () => hangingRequest(keys.inflight.key));
    try {
      await Promise.all(hanging.map((request) => request.started));
      const refusedBy = new Set<string | null>();
      // What the probes got, for a failure's message (it failed once under a loaded machine, with none refused).
      const answers = new Map<string, number>();
      await expect
        .poll(
          async () => {
            const { status, worker, code } = await call(keys.inflight.key);
            const answer = `${status}${code ? ` ${code}` : ''} from worker ${worker}`;
            answers.set(answer, (answers.get(answer) ?? 0) + 1);
            if (status === 429 && code === 'concurrency_limit_exceeded') refusedBy.add(worker);
            return [...refusedBy].sort();
          },
          { timeout: 10_000, interval: 10 },
        )
        .toEqual(['1', '2'])
        .catch((error: Error) => {
          const held = hanging.map((request) => request.answered() ?? 'no answer').join(', ');
          throw new Error(
            `${error.message}; the probes got ${JSON.stringify([...answers])}; the held requests: ${held}`,
          );
        });
    } finally {
      for (const request of hanging) request.destroy();
    }
    // The slots come back when those requests go, on whichever worker held them.
    await expect.poll(async () => (await call(keys.inflight.key)).status, { timeout: 10_000 }).toBe(200);
  });

  it('a deployment pushed through one worker is served by every worker', async () => {
    const deployment = makeDeployment({ agent_id: 'workers', number: 1 });
    const path = `${server.url}/v1/deployments/${encodeURIComponent(deployment.id)}`;
    const headers = { authorization: `Bearer ${keys.deploy.key}`, 'content-type': 'application/json' };
    const put = await fetch(path, { method: 'PUT', headers, body: JSON.stringify(deployment) });
    expect(put.status).toBe(201);
    const servedBy = new Set<string | null>();
    for (let index = 0; index < 40 && servedBy.size < 2; index++) {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...headers, connection: 'close' },
        body: JSON.stringify({
          model: `switchyard/deployment/${deployment.id}`,
          input: { product: 'Acme', ticket: 'It broke.' },
        }),
      });
      expect(response.status).toBe(200);
      servedBy.add(response.headers.get('x-switchyard-worker'));
    }
    expect(servedBy).toEqual(new Set(['1', '2']));
  });

  it('a second SIGTERM: no worker waits for what is in flight; the primary exits with 130', async () => {
    const hanging = hangingRequest(keys.budget.key);
    await hanging.started;
    server.child.kill('SIGTERM');
    await expect.poll(() => server.stderr()).toContain('"msg":"shutting down"');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(130);
    expect(server.lines().map((line) => line.msg)).toContain('shutting down now');
    hanging.destroy();
  });
});

/**
 * A request on a connection of its own whose body never ends. `started`: its `100 Continue`, which serve sends when
 * the route reads the body, after the key's slot is taken.
 */
function hangingRequest(apiKey: string): {
  started: Promise<unknown>;
  answered(): string | undefined;
  destroy(): void;
} {
  const hanging = request(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'content-length': '1000',
      connection: 'close',
      expect: '100-continue',
    },
  });
  hanging.on('error', () => undefined);
  // A held request should get no answer until destroyed; what it got, if it did, is for a failure's message.
  let answered: string | undefined;
  hanging.once('response', (response) => (answered = `${response.statusCode}`));
  const started = new Promise((resolve) => hanging.once('continue', resolve));
  hanging.flushHeaders();
  void started.then(() => hanging.write('{"model":'));
  return { started, answered: () => answered, destroy: () => hanging.destroy() };
}
