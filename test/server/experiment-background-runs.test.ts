import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Experiments } from '../../src/experiments/experiments-api.ts';
import { MockProvider } from '../../src/providers/mock/simulator.ts';
import {
  BackgroundRuns,
  MAX_BACKGROUND_RUNS,
  MAX_BACKGROUND_RUNS_PER_TENANT,
} from '../../src/server/background-runs.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Runs started by `POST /v1/experiments/{id}/run` outlive the request: a client going away does not stop them, at
 * most `MAX_BACKGROUND_RUNS` are under way per process (a 429 past it), and a run that fails is logged, never an
 * unhandled rejection.
 */
let test: TestServer;
let open: () => void = () => undefined;
let gate = Promise.resolve();
const closeGate = () => {
  gate = new Promise((resolve) => (open = resolve));
};

let simulator: MockProvider;
beforeAll(async () => {
  simulator = new MockProvider({
    respond: async () => {
      await gate;
      return 'fine';
    },
  });
  test = await startTestServer({ mock: simulator });
}, 30_000);
afterAll(async () => {
  open();
  await test.stop();
});

const version = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say {{word}}' }] };
let made = 0;
/** A new cell each time: an identical cell answered before would be reused at once, without a call. */
async function experimentWithOneCell(): Promise<string> {
  made++;
  const response = await api(test, '/v1/experiments', {
    body: { agent_id: 'support', versions: [version], inputs: [{ variables: { word: `hi ${made}` } }] },
  });
  expect(response.status).toBe(201);
  return (await jsonOf(response)).id;
}

describe('background experiment runs', () => {
  it('keeps running when the client goes away', async () => {
    closeGate();
    const id = await experimentWithOneCell();
    const aborted = new AbortController();
    const callsBefore = simulator.calls.length;
    const request = fetch(`${test.url}/v1/experiments/${id}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ wait_ms: 10_000 }),
      signal: aborted.signal,
    });
    // The client leaves once its run has started: the cell's call is waiting at the gate.
    await expect.poll(() => simulator.calls.length, { timeout: 5_000 }).toBe(callsBefore + 1);
    aborted.abort();
    await expect(request).rejects.toThrow();
    open();
    const done = await jsonOf(await api(test, `/v1/experiments/${id}?wait_ms=10000`));
    expect(done.status).toBe('completed');
    expect(done.cells[0]).toMatchObject({ status: 'completed', output: 'fine' });
  });

  it(`refuses past ${MAX_BACKGROUND_RUNS_PER_TENANT} runs a key or ${MAX_BACKGROUND_RUNS} in all (429)`, async () => {
    closeGate();
    const keys = [test.key];
    for (let i = 1; i <= MAX_BACKGROUND_RUNS / MAX_BACKGROUND_RUNS_PER_TENANT; i++)
      keys.push((await test.server.keys.create(`runner ${i}`)).key);
    const ids: string[] = [];
    for (let i = 0; i <= MAX_BACKGROUND_RUNS; i++) ids.push(await experimentWithOneCell());
    const run = (id: string, key: string, body = {}) => api(test, `/v1/experiments/${id}/run`, { key, body });
    for (const [index, id] of ids.slice(0, MAX_BACKGROUND_RUNS).entries())
      expect((await run(id, keys[index % MAX_BACKGROUND_RUNS_PER_TENANT]!)).status).toBe(202);
    const oneKeyMore = await run(ids.at(-1)!, test.key);
    expect(oneKeyMore.status).toBe(429);
    expect((await jsonOf(oneKeyMore)).error.message).toMatch(
      /This API key's tenant \(it and the keys minted with it\) has 4 experiment runs under way/,
    );
    const refused = await run(ids.at(-1)!, keys.at(-1)!);
    expect(refused.status).toBe(429);
    expect((await jsonOf(refused)).error.message).toMatch(/Too many experiment runs under way \(16 per server\)/);
    // A create that would run is refused before anything is stored.
    const before = (await jsonOf(await api(test, '/v1/experiments?limit=100'))).data.length;
    const body = { agent_id: 'support', versions: [version], inputs: [{ variables: { word: 'late' } }], run: true };
    expect((await api(test, '/v1/experiments', { key: keys.at(-1)!, body })).status).toBe(429);
    expect((await jsonOf(await api(test, '/v1/experiments?limit=100'))).data).toHaveLength(before);
    open();
    for (const id of ids.slice(0, MAX_BACKGROUND_RUNS)) {
      const done = await jsonOf(await api(test, `/v1/experiments/${id}?wait_ms=10000`));
      expect(done.status).toBe('completed');
    }
    // Room again once they ended.
    expect((await run(ids.at(-1)!, test.key, { wait_ms: 10_000 })).status).toBe(200);
  });

  it('logs a run that fails instead of leaving an unhandled rejection', async () => {
    const failures: Array<[string, string]> = [];
    const runs = new BackgroundRuns((error, id) => failures.push([id, (error as Error).message]), 2);
    const experiments = { run: async () => Promise.reject(new Error('store down')) } as unknown as Experiments;
    runs.start(experiments, 'exp_1', {});
    expect(runs.size).toBe(1);
    await runs.pending('exp_1');
    expect(failures).toEqual([['exp_1', 'store down']]);
    expect(runs.size).toBe(0);
    expect(runs.pending('exp_1')).toBeUndefined();
  });
});
