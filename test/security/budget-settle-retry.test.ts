import { once } from 'node:events';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { BudgetLedger } from '../../src/budgets/budget-ledger.ts';
import { RedisSpendStore, RedisTokenBuckets } from '../../src/budgets/redis-counters.ts';
import { startRedis } from '../helpers/redis.ts';

/**
 * A call's cost charged to Redis while Redis is away is charged once it is back (not lost: an undercount), and a
 * settle sent again after one whose answer was lost is charged once (not twice).
 */
const available = await startRedis();
await available?.stop();
if (!available) console.warn('SKIPPED: budget settles on Redis (no redis-server installed; CI installs it).');

/** A client as serve makes its own: fails fast while disconnected, reconnects by itself. */
async function clientOf(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    commandTimeout: 500,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  redis.on('error', () => {});
  await redis.connect();
  if (redis.status !== 'ready') await once(redis, 'ready');
  return redis;
}

const rule = { scope: 'trace', usd: 10, window: 'day' } as const;
const subject = { metadata: { trace_id: 'order-42' } };

describe.skipIf(!available)('settling a budget on Redis', () => {
  it('a settle repeated under the same id charges once', async () => {
    const server = (await startRedis())!;
    const redis = await clientOf(server.url);
    try {
      const store = new RedisSpendStore(redis);
      const charge = { slot: 'trace\u0000day\u0000usd\u00002026-11-29\u0000order-42', amount: 0.25, ttlMs: 60_000 };
      await store.settle('call-1', [], [charge]);
      await store.settle('call-1', [], [charge]);
      await store.settle('call-2', [], [charge]);
      expect(await store.spent(charge.slot)).toBeCloseTo(0.5, 10);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  it('a settle that met Redis away is made again once it is back', async () => {
    const server = (await startRedis())!;
    const redis = await clientOf(server.url);
    try {
      const ledger = new BudgetLedger({ rules: [rule], store: new RedisSpendStore(redis) });
      const hold = await ledger.reserve(subject, { usd: 1, tokens: 0 });
      await server.stop();
      await expect(ledger.settle(hold, 0.25, 0)).rejects.toThrow();
      await server.restart();
      // Redis came back empty (nothing persisted): what it counts is the retried charge alone.
      await expect
        .poll(() => ledger.spent(rule, 'order-42').catch(() => -1), { timeout: 8000, interval: 200 })
        .toBeCloseTo(0.25, 10);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});

describe.skipIf(!available)('a rate bucket on Redis', () => {
  it('takes no tokens back when Redis’s clock has stepped back (a failover to a node behind)', async () => {
    const server = (await startRedis())!;
    const redis = await clientOf(server.url);
    try {
      const buckets = new RedisTokenBuckets(redis);
      const [seconds] = await redis.time();
      // Last touched "10 s from now" by the clock of the node before.
      await redis.hset('switchyard:rate:key_a', 'tokens', '60', 'at', String(Number(seconds) * 1000 + 10_000));
      expect(await buckets.take('key_a', 60, 60 / 60_000)).toMatchObject({ taken: true, tokens: 59 });
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});

describe.skipIf(!available)("budget windows on Redis's clock", () => {
  it('a replica whose clock is a day ahead charges and reads the day Redis is in', async () => {
    const server = (await startRedis())!;
    const redis = await clientOf(server.url);
    try {
      const today = new Date().toISOString().slice(0, 10);
      // This replica's clock, a day ahead of Redis's (and of every other replica's).
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_400_000 });
      const store = new RedisSpendStore(redis);
      const trueTime = () => performance.timeOrigin + performance.now();
      await expect.poll(() => Math.abs(store.now!().getTime() - trueTime())).toBeLessThan(5_000);
      const ledger = new BudgetLedger({ rules: [{ scope: 'agent', usd: 10, window: 'day' }], store });
      const subject = { metadata: { agent_id: 'support' } };
      const hold = await ledger.reserve(subject, { usd: 1, tokens: 0 });
      await ledger.settle(hold, 0.25, 0);
      const keys = await redis.keys('switchyard:spend:*');
      expect(keys).toEqual([`switchyard:spend:agent\u0000day\u0000usd\u0000${today}\u0000support`]);
      expect(await ledger.spent({ scope: 'agent', usd: 10, window: 'day' }, 'support')).toBeCloseTo(0.25, 10);
    } finally {
      vi.useRealTimers();
      redis.disconnect();
      await server.stop();
    }
  });
});
