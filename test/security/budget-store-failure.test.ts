import { once } from 'node:events';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { BudgetOptions } from '../../src/budgets/budget-ledger.ts';
import { RedisSpendStore } from '../../src/budgets/redis-counters.ts';
import { StorageUnavailableError } from '../../src/errors.ts';
import { createGateway } from '../../src/index.ts';
import { startRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer } from '../server/start-test-server.ts';

const ask = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'Hi.' }],
  metadata: { trace_id: 't' },
};
const available = await startRedis();
await available?.stop();
if (!available) console.warn('SKIPPED: budget store failures (no redis-server installed; CI installs it).');

/** A gateway whose budgets are in a throwaway Redis, stopped once the first call went through. */
async function afterRedisStops(onStoreError?: BudgetOptions['onStoreError']) {
  const server = (await startRedis())!;
  // A client that fails fast once the server is gone, as `serve` configures its own.
  const redis = new Redis(server.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  await redis.connect();
  if (redis.status !== 'ready') await once(redis, 'ready');
  const store = new RedisSpendStore(redis);
  const gateway = createGateway({
    mock: true,
    budgets: { perTrace: 1, store, ...(onStoreError ? { onStoreError } : {}) },
  });
  await gateway.createCompletion(ask).finally(() => server.stop());
  return { gateway, close: () => redis.disconnect() };
}

describe.skipIf(!available)('budgets when their store fails', () => {
  it('fail closed by default: the call is refused with a 503 storage_unavailable naming redis', async () => {
    const { gateway, close } = await afterRedisStops();
    try {
      const started = performance.now();
      const error = await gateway.createCompletion(ask).catch((thrown: unknown) => thrown);
      console.log(`refused after ${Math.round(performance.now() - started)} ms`);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect(error).toMatchObject({ status: 503, code: 'storage_unavailable', component: 'redis' });
      expect((error as Error).message).toContain('The call was not sent');
    } finally {
      close();
    }
  });

  it('onStoreError "open": the call goes through unchecked, with a budget_unchecked warning', async () => {
    const { gateway, close } = await afterRedisStops('open');
    try {
      const response = await gateway.createCompletion(ask);
      expect(response.switchyard.warnings.map((warning) => warning.code)).toContain('budget_unchecked');
    } finally {
      close();
    }
  });

  it('through serve with --redis: a 503 in the OpenAI error shape once Redis is gone', async () => {
    const redis = (await startRedis())!;
    let running = true;
    const test = await startTestServer({ redis: redis.url, gateway: { budgets: { perTrace: 1 } } });
    try {
      expect((await api(test, '/v1/chat/completions', { body: ask })).status).toBe(200);
      running = false;
      await redis.stop();
      const started = performance.now();
      const response = await api(test, '/v1/chat/completions', { body: ask });
      console.log(`serve answered ${response.status} after ${Math.round(performance.now() - started)} ms`);
      expect(response.status).toBe(503);
      expect((await jsonOf(response)).error).toMatchObject({ code: 'storage_unavailable' });
    } finally {
      await test.stop();
      if (running) await redis.stop();
    }
  });
});
