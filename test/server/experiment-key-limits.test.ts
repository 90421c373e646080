import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * An experiment's cells are calls of the key that started the run, made after its request was answered: they take
 * from the key's rate as its requests do, and stop once the key is revoked.
 */
let limited: TestServer;
let gated: TestServer;
let open: () => void = () => undefined;
let gate: Promise<void> = Promise.resolve();
/** Calls the gated simulator has been asked for. */
let asked = 0;
beforeAll(async () => {
  limited = await startTestServer({ requestsPerMinutePerKey: 4 });
  const simulator = new MockProvider({
    respond: async () => {
      asked += 1;
      await gate;
      return 'fine';
    },
  });
  gated = await startTestServer({ mock: simulator });
}, 30_000);
afterAll(async () => {
  open();
  await Promise.all([limited.stop(), gated.stop()]);
});

const grant: KeyGrant = {
  scopes: ['chat', 'calls:read'],
  allowed_agents: ['support'],
  allowed_models: null,
  expires_at: null,
};
const version = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say {{word}}' }] };
const inputs = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => ({ variables: { word: `${prefix} ${index}` } }));
const statusesOf = (experiment: { cells: Array<{ status: string }> }) => experiment.cells.map((cell) => cell.status);

describe('experiment cells under the key’s limits', () => {
  it('take from the key’s rate: a key of 4 requests a minute gets 3 cells after its create, then waits', async () => {
    const { key } = await limited.server.keys.create('slow', { grant });
    const created = await api(limited, '/v1/experiments', {
      key,
      body: { agent_id: 'support', versions: [version], inputs: inputs('rate', 20), run: true },
    });
    expect(created.status).toBe(201);
    const { id } = await jsonOf(created);
    // Read with the admin key: the slow key has no request left. Its fourth token is 15 s away: three cells, then
    // the run waits for it.
    const read = async () => jsonOf(await api(limited, `/v1/experiments/${id}`));
    const completed = (experiment: { cells: Array<{ status: string }> }) =>
      statusesOf(experiment).filter((status) => status === 'completed').length;
    await expect.poll(async () => completed(await read()), { timeout: 10_000 }).toBe(3);
    const seen = await read();
    expect(completed(seen)).toBe(3);
    expect(seen.status).toBe('running');
  });

  it('stop once the key is revoked: the calls in flight end, no other starts, the rest stays pending', async () => {
    const { key, info } = await gated.server.keys.create('revoked mid-run', { grant });
    gate = new Promise((resolve) => (open = resolve));
    const { id } = await jsonOf(
      await api(gated, '/v1/experiments', {
        key,
        body: { agent_id: 'support', versions: [version], inputs: inputs('revoke', 10) },
      }),
    );
    expect((await api(gated, `/v1/experiments/${id}/run`, { key, body: { concurrency: 2 } })).status).toBe(202);
    await gated.server.keys.revoke(info.id);
    // Once the key's check (what each cell runs before its call) refuses it, the calls in flight may end.
    await expect.poll(() => gated.server.keys.check(key), { timeout: 5_000 }).toMatchObject({ ok: false });
    open();
    await expect
      .poll(async () => (await jsonOf(await api(gated, `/v1/experiments/${id}`))).status, { timeout: 5000 })
      .not.toBe('running');
    const done = await jsonOf(await api(gated, `/v1/experiments/${id}`));
    expect(statusesOf(done).filter((status) => status === 'completed')).toHaveLength(2);
    expect(statusesOf(done).filter((status) => status === 'pending')).toHaveLength(8);
    const stopped = gated.logs.find((line) => line.msg === 'experiment run failed' && line.experiment_id === id);
    expect(String(stopped?.error)).toMatch(/revoked/);
  });

  it('stop once the key is revoked while they wait for one of its slots: none calls as the revoked key', async () => {
    const { key, info } = await gated.server.keys.create('revoked while waiting', { grant });
    await gated.server.keys.updateLimits(info.id, { max_in_flight: 1 });
    gate = new Promise((resolve) => (open = resolve));
    const { id } = await jsonOf(
      await api(gated, '/v1/experiments', {
        key,
        body: { agent_id: 'support', versions: [version], inputs: inputs('waiting', 4) },
      }),
    );
    const before = asked;
    expect((await api(gated, `/v1/experiments/${id}/run`, { key, body: { concurrency: 2 } })).status).toBe(202);
    // The first cell holds the key's one slot at the gate; the second waits for it.
    await expect.poll(() => asked, { timeout: 2000 }).toBe(before + 1);
    await gated.server.keys.revoke(info.id);
    open();
    await expect
      .poll(async () => (await jsonOf(await api(gated, `/v1/experiments/${id}`))).status, { timeout: 8000 })
      .not.toBe('running');
    // Only the cell admitted before the revocation; the one that waited for its slot is refused once it has one.
    expect(asked).toBe(before + 1);
    const done = await jsonOf(await api(gated, `/v1/experiments/${id}`));
    expect(statusesOf(done).filter((status) => status === 'completed')).toHaveLength(1);
    const stopped = gated.logs.find((line) => line.msg === 'experiment run failed' && line.experiment_id === id);
    expect(String(stopped?.error)).toMatch(/revoked/);
  });

  it('follow the key’s limits as they change: a budget lowered mid-run refuses the cells not yet started', async () => {
    const { key, info } = await gated.server.keys.create('limited mid-run', { grant });
    gate = new Promise((resolve) => (open = resolve));
    const { id } = await jsonOf(
      await api(gated, '/v1/experiments', {
        key,
        body: { agent_id: 'support', versions: [version], inputs: inputs('lowered', 6) },
      }),
    );
    expect((await api(gated, `/v1/experiments/${id}/run`, { key, body: { concurrency: 2 } })).status).toBe(202);
    await gated.server.keys.updateLimits(info.id, { budgets: ['0.000001/day'] });
    await expect
      .poll(async () => (await gated.server.keys.check(key)).ok && (await gated.server.keys.check(key)))
      .toMatchObject({ key: { limits: { budgets: ['0.000001/day'] } } });
    open();
    await expect
      .poll(async () => (await jsonOf(await api(gated, `/v1/experiments/${id}`))).status, { timeout: 5000 })
      .not.toBe('running');
    const done = await jsonOf(await api(gated, `/v1/experiments/${id}`));
    // The two cells in flight when it changed were admitted before, and a budget admits one call while nothing is
    // spent or held (its hold is what stops the next); no other passes a budget of $0.000001. Before: all six.
    expect(statusesOf(done).filter((status) => status === 'completed').length).toBeLessThanOrEqual(3);
  });
});
