import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * `/v1/health` is liveness (200 while the process answers); `/v1/health/ready` is readiness: 503 while PostgreSQL or
 * Redis does not answer, or no provider has credentials, and 200 again by itself. The startup log says what is used.
 */
// A server of its own: the test stops and restarts it.
const postgres: ThrowawayPostgres | undefined = await startPostgres({ own: true });
const redis: ThrowawayRedis | undefined = await startRedis();
if (!postgres || !redis) console.warn('SKIPPED: the readiness test (PostgreSQL or Redis not installed; CI has both).');
let server: TestServer;
beforeAll(async () => {
  if (!postgres || !redis) return;
  const database = postgres.url.replace('switchyard@', 'switchyard:s3cret@');
  server = await startTestServer({
    database,
    redis: redis.url,
    requestsPerMinutePerKey: 600,
    maxConcurrentPerKey: 8,
    corsOrigins: ['https://app.example'],
    gateway: { budgets: { perTrace: 2, rules: [{ scope: 'key', tokens: 50_000, window: 'minute' }] } },
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await postgres?.stop();
  await redis?.stop();
});

const ready = async () => {
  const response = await api(server, '/v1/health/ready', { key: null });
  return { status: response.status, body: await jsonOf(response) };
};

describe.skipIf(!postgres || !redis)('readiness', () => {
  it('is 200 with each component and its probe time while everything answers', async () => {
    const { status, body } = await ready();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ready',
      components: {
        postgres: { status: 'ok', latency_ms: expect.any(Number) },
        redis: { status: 'ok', latency_ms: expect.any(Number) },
        providers: { status: 'ok', latency_ms: 0 },
      },
    });
  });

  it('logs the stores (password redacted), limits, budgets and CORS origins at startup', () => {
    const line = server.logs.find((entry) => entry.msg === 'configuration');
    expect(line).toMatchObject({
      stores: { keys: expect.stringContaining('[redacted]@'), counters: redis!.url },
      limits: { max_concurrent_per_key: 8, requests_per_minute_per_key: 600, tokens_per_minute_per_key: 50_000 },
      budgets: { per_trace_usd: 2 },
      cors_origins: ['https://app.example'],
    });
    expect(JSON.stringify(server.logs)).not.toContain('s3cret');
  });

  it('answers 503 naming the engine down, stays live, and recovers by itself', async () => {
    await server.server.gateway.flush();
    await postgres!.halt();
    await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 100 }).toBe(503);
    expect((await ready()).body).toMatchObject({ status: 'not_ready', components: { postgres: { status: 'down' } } });
    expect((await api(server, '/v1/health', { key: null })).status).toBe(200);
    await postgres!.restart();
    await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 100 }).toBe(200);

    await redis!.stop();
    await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 100 }).toBe(503);
    expect((await ready()).body).toMatchObject({
      components: { redis: { status: 'down' }, postgres: { status: 'ok' } },
    });
    await redis!.restart();
    await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 100 }).toBe(200);
  }, 60_000);
});

describe('readiness without credentials', () => {
  it('is 503 when no provider has credentials', async () => {
    const bare = await startTestServer({ mock: false });
    try {
      const response = await api(bare, '/v1/health/ready', { key: null });
      expect(response.status).toBe(503);
      expect(await jsonOf(response)).toMatchObject({ components: { providers: { status: 'down' } } });
    } finally {
      await bare.stop();
    }
  });
});
