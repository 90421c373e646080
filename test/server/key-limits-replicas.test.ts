import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * The acceptance of limits per key across two replicas sharing PostgreSQL (the keys) and Redis (the counters): a key
 * made with 30 a minute passes 29 to 31 of 45 quick calls spread over both, another key unaffected; a key's budget
 * stops it on both, a PATCH through one raises it and both let it call again; a parent at 10 a minute cannot mint a
 * child at 100. Skipped, saying so, where PostgreSQL or Redis is not installed and CI is not set.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
const redis: ThrowawayRedis | undefined = postgres ? await startRedis() : undefined;
if (!postgres || !redis) console.warn('SKIPPED: limits per key across replicas (no PostgreSQL or Redis installed).');
let replicas: TestServer[] = [];
/** What every replica's provider waits for before it answers: open, unless a test holds its calls in flight. */
let gate: Promise<void> = Promise.resolve();
beforeAll(async () => {
  if (!postgres || !redis) return;
  // 10,000 tokens in and out: $0.0075 a call on gpt-4o-mini.
  const costly = () =>
    new MockProvider({
      respond: async () => {
        await gate;
        return { content: 'Working.', usage: { prompt_tokens: 10_000, completion_tokens: 10_000 } };
      },
    });
  replicas = await Promise.all(
    [0, 1].map(() => startTestServer({ mock: costly(), database: postgres.url, redis: redis.url })),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await redis?.stop();
  await postgres?.stop();
});

const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

async function mint(on: TestServer, body: Record<string, unknown>, by = on.key) {
  const response = await api(on, '/v1/keys', { method: 'POST', key: by, body });
  return { status: response.status, json: await jsonOf(response) };
}

describe.skipIf(!postgres || !redis)('limits per key on two replicas (PostgreSQL + Redis)', () => {
  it('30 a minute: 29 to 31 of 45 quick calls over both replicas pass; another key is unaffected', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const limited = (await mint(a, { limits: { requests_per_minute: 30 } })).json;
    const other = (await mint(b, {})).json;
    let passed = 0;
    for (let index = 0; index < 45; index++) {
      const status = (await api(index % 2 ? b : a, '/v1/deployments', { key: limited.key })).status;
      if (status === 200) passed += 1;
      else expect(status).toBe(429);
      expect((await api(index % 2 ? a : b, '/v1/deployments', { key: other.key })).status).toBe(200);
    }
    console.log(`a key of 30 requests a minute on two replicas: ${passed} of 45 passed`);
    expect(passed).toBeGreaterThanOrEqual(29);
    expect(passed).toBeLessThanOrEqual(31);
  });

  it('a budget stops the key on both replicas; a PATCH raises it and both let it call again', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const { key, id } = (await mint(a, { limits: { budgets: ['0.01/day'] } })).json;
    const ask = (replica: TestServer) => api(replica, '/v1/chat/completions', { method: 'POST', key, body: hello });
    const spent = async () =>
      (await jsonOf(await api(a, '/v1/keys'))).data.find((each: { id: string }) => each.id === id).usage.budgets[0]
        .spent_usd;
    // Each call's spend lands in Redis just after its answer.
    expect((await ask(a)).status).toBe(200);
    await expect.poll(spent, { timeout: 5_000 }).toBeCloseTo(0.0075, 6);
    expect((await ask(b)).status).toBe(200);
    await expect.poll(spent, { timeout: 5_000 }).toBeCloseTo(0.015, 6);
    for (const replica of [a, b]) {
      const refused = await ask(replica);
      expect(refused.status).toBe(402);
      expect((await jsonOf(refused)).error.code).toBe('insufficient_quota');
    }
    const patched = await api(b, `/v1/keys/${id}`, { method: 'PATCH', body: { limits: { budgets: ['1/day'] } } });
    expect(patched.status).toBe(200);
    // The other replica trusts what it read of the key for under a second.
    for (const replica of [a, b])
      await expect.poll(async () => (await ask(replica)).status, { timeout: 3_000 }).toBe(200);
  });

  it('max_in_flight 2: a third call is refused on either replica while two run on the other', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const { key, id } = (await mint(a, { limits: { max_in_flight: 2 } })).json;
    const inFlight = async (replica: TestServer) =>
      (await jsonOf(await api(replica, '/v1/keys'))).data.find((each: { id: string }) => each.id === id).usage.in_flight
        .current;
    let open: () => void = () => undefined;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    try {
      const running = [0, 1].map(() => api(a, '/v1/chat/completions', { method: 'POST', key, body: hello }));
      const third = () => api(b, '/v1/chat/completions', { method: 'POST', key, body: hello });
      // Once both hold their slots in Redis (the other replica reads them there), it refuses a third.
      await expect.poll(() => inFlight(b), { timeout: 5_000 }).toBe(2);
      const refused = await third();
      expect(refused.status).toBe(429);
      expect((await jsonOf(refused)).error.code).toBe('concurrency_limit_exceeded');
      open();
      expect((await Promise.all(running)).map((response) => response.status)).toEqual([200, 200]);
      await expect.poll(() => inFlight(b), { timeout: 5_000 }).toBe(0);
      expect((await third()).status).toBe(200);
    } finally {
      open();
      gate = Promise.resolve();
    }
  });

  it('a parent at 10 a minute cannot mint a child at 100, on either replica', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const parent = (await mint(a, { scopes: ['chat', 'keys:create'], limits: { requests_per_minute: 10 } })).json;
    for (const replica of [a, b]) {
      const refused = await mint(replica, { limits: { requests_per_minute: 100 } }, parent.key);
      expect(refused.status).toBe(403);
      expect(refused.json.error.message).toContain('(10)');
    }
  });
});
