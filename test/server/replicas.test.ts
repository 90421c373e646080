import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Two `serve` processes' worth (two servers, two data directories) on one real PostgreSQL: the records of both are
 * in one `/v1/calls`, and they share the API keys and the deployments. Skipped, saying so, where PostgreSQL is not
 * installed and CI is not set.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the replica test (no PostgreSQL installed; CI installs it).');
let replicas: TestServer[] = [];
beforeAll(async () => {
  if (!postgres) return;
  // No `deployments` option: the deployments are in PostgreSQL too.
  replicas = await Promise.all([0, 1].map(() => startTestServer({ database: postgres.url })));
}, 60_000);
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await postgres?.stop();
});

describe.skipIf(!postgres)('serve --database postgres://', () => {
  it('both replicas write their calls to the one database, and each lists them all', async () => {
    const trace = `trace-${Date.now()}`;
    for (const [index, replica] of replicas.entries()) {
      const response = await api(replica, '/v1/chat/completions', {
        method: 'POST',
        body: {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `from replica ${index}` }],
          metadata: { trace_id: trace },
        },
      });
      expect(response.status).toBe(200);
    }
    // Each replica writes its records in batches (within a second); a replica's /v1/calls flushes only its own.
    await Promise.all(replicas.map((replica) => replica.server.gateway.flush()));
    for (const replica of replicas) {
      const listed = await jsonOf(await api(replica, `/v1/calls?trace_id=${trace}`));
      expect(listed.data).toHaveLength(2);
      const workflow = await jsonOf(await api(replica, `/v1/workflows/${trace}`));
      expect(workflow.calls).toHaveLength(2);
    }
  });

  it('keys are shared: made on one replica, they work on the other; revoked, refused by it within 1 s', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const { key, info } = await a.server.keys.create('shared');
    expect((await api(b, '/v1/deployments', { key })).status).toBe(200);
    await a.server.keys.revoke(info.id);
    const revokedAt = performance.now();
    // The other replica trusts a key it found valid for 0.8 s: from then on (within 1 s) it is refused, and stays so.
    await expect
      .poll(async () => (await api(b, '/v1/deployments', { key })).status, { timeout: 1_000, interval: 50 })
      .toBe(401);
    console.log(`revocation seen by the other replica after ${Math.round(performance.now() - revokedAt)} ms`);
    expect((await api(b, '/v1/deployments', { key })).status).toBe(401);
  });

  it('a deployment pushed through one replica is served by the other', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const deployment = makeDeployment({ agent_id: 'replicated', number: 1 });
    const path = `/v1/deployments/${encodeURIComponent(deployment.id)}`;
    expect((await api(a, path, { method: 'PUT', body: deployment })).status).toBe(201);
    expect((await jsonOf(await api(b, path))).id).toBe(deployment.id);
    const call = await api(b, '/v1/chat/completions', {
      method: 'POST',
      body: { model: `switchyard/deployment/${deployment.id}`, input: { product: 'Acme', ticket: 'It broke.' } },
    });
    expect(call.status).toBe(200);
  });

  it('two replicas pushing at once: each number stored once, the same version twice is idempotent', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const put = (replica: TestServer, body: object & { id: string }) =>
      api(replica, `/v1/deployments/${encodeURIComponent(body.id)}`, { method: 'PUT', body });
    // Both replicas claim numbers 1 to 20 at once, each with its own content: one wins each number, the other 409.
    const claims = Array.from({ length: 20 }, (_, index) => index + 1).flatMap((number) =>
      (['a', 'b'] as const).map((side) =>
        put(side === 'a' ? a : b, makeDeployment({ agent_id: 'raced', number }, {}, { description: side })),
      ),
    );
    const statuses = (await Promise.all(claims)).map((response) => response.status);
    const created = statuses.filter((status) => status === 201).length;
    const refused = statuses.filter((status) => status === 409).length;
    console.log(`concurrent pushes of 20 numbers from two replicas: ${created} created, ${refused} refused (409)`);
    expect([created, refused]).toEqual([20, 20]);
    const listed = await jsonOf(await api(b, '/v1/deployments?agent_id=raced'));
    const numbers = listed.data
      .map((deployment: { number: number }) => deployment.number)
      .sort((x: number, y: number) => x - y);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    // The same version from both replicas at once, twice: stored once, never a conflict.
    const same = makeDeployment({ agent_id: 'raced', number: 21 });
    const again = await Promise.all([put(a, same), put(b, same), put(a, same), put(b, same)]);
    expect(again.every((response) => response.status === 200 || response.status === 201)).toBe(true);
    expect((await jsonOf(await api(a, '/v1/deployments?agent_id=raced'))).data).toHaveLength(21);
  });

  it('a URL with a password never shows it in an error', async () => {
    const database = 'postgres://user:s3cretpass@127.0.0.1:1/db';
    const error = await startTestServer({ database, databaseWaitMs: 0 }).catch((thrown: unknown) => thrown);
    expect(String((error as Error).message)).not.toContain('s3cretpass');
  });
});

/**
 * With Redis too: the rate limit and the budget are counted once for both replicas. Skipped, saying so, where Redis
 * or PostgreSQL is not installed and CI is not set.
 */
const redis: ThrowawayRedis | undefined = postgres ? await startRedis() : undefined;
if (postgres && !redis) console.warn('SKIPPED: the Redis replica tests (no redis-server installed; CI installs it).');
let counted: TestServer[] = [];
beforeAll(async () => {
  if (!postgres || !redis) return;
  const costly = () =>
    new MockProvider({
      respond: () => ({ content: 'Working.', usage: { prompt_tokens: 10_000, completion_tokens: 10_000 } }),
    });
  counted = await Promise.all(
    [0, 1].map(() =>
      startTestServer({
        mock: costly(),
        database: postgres.url,
        redis: redis.url,
        requestsPerMinutePerKey: 60,
        gateway: { budgets: { rules: [{ scope: 'trace', usd: 0.01, window: 'lifetime' }] } },
      }),
    ),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all(counted.map((replica) => replica.stop()));
  await redis?.stop();
});

describe.skipIf(!postgres || !redis)('serve --database … --redis …', () => {
  it('a 60-requests-a-minute limit holds across both replicas', async () => {
    const { key } = await counted[0]!.server.keys.create('limited');
    let accepted = 0;
    for (let index = 0; index < 70; index++) {
      const status = (await api(counted[index % 2]!, '/v1/deployments', { key })).status;
      if (status !== 429) accepted += 1;
    }
    console.log(`rate limit across two replicas: ${accepted} of 70 requests accepted (limit 60 a minute)`);
    // A token comes back every second: the 70 requests take about one, so one may have been refilled.
    expect(accepted).toBeGreaterThanOrEqual(60);
    expect(accepted).toBeLessThanOrEqual(62);
  });

  it('a $0.01 budget stops the trace on both replicas', async () => {
    // One key on both: a trace is its tenant's, and each replica's own test key is a tenant of its own.
    const ask = (replica: TestServer) =>
      api(replica, '/v1/chat/completions', {
        method: 'POST',
        key: counted[0]!.key,
        body: {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'Go on.' }],
          metadata: { trace_id: 'shared-budget' },
        },
      });
    // A call's spend lands in Redis just after its answer: until then its worst cost is held there.
    const shared = new Redis(redis!.url);
    const landed = async () => {
      for (const key of await shared.keys('switchyard:held:*')) if ((await shared.zcard(key)) > 0) return false;
      return true;
    };
    try {
      // gpt-4o-mini: 10,000 tokens in and out cost $0.0075 a call.
      expect((await ask(counted[0]!)).status).toBe(200);
      await expect.poll(landed, { timeout: 5_000 }).toBe(true);
      expect((await ask(counted[1]!)).status).toBe(200);
      await expect.poll(landed, { timeout: 5_000 }).toBe(true);
    } finally {
      shared.disconnect();
    }
    for (const replica of counted) {
      const refused = await ask(replica);
      expect(refused.status).toBe(402);
      expect((await jsonOf(refused)).error.code).toBe('insufficient_quota');
    }
  });
});
