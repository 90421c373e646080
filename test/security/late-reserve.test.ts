import { describe, expect, it } from 'vitest';
import type { KeyLimits } from '../../src/access/key-limits.ts';
import { startRedis } from '../helpers/redis.ts';
import { api, startTestServer } from '../server/start-test-server.ts';

/**
 * A hold Redis took after its client gave up on it (a reserve past the 500 ms command timeout, answered 503) is
 * given back: it must not lock a key with one slot out for the hold's 15 minutes, nor hold a budget.
 */
const available = await startRedis();
await available?.stop();
if (!available) console.warn('SKIPPED: a late reserve on Redis (no redis-server installed; CI installs it).');

const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

/**
 * A key with `limits` on a serve counting in a throwaway Redis: one call passes; with Redis frozen, the next one's
 * reserve is sent and times out (503), and Redis runs it once thawed; then calls must pass again (before, 429 or
 * 402 for the hold's 15 minutes).
 */
async function afterALateReserve(limits: KeyLimits, body: Record<string, unknown>): Promise<void> {
  const redis = (await startRedis())!;
  const server = await startTestServer({ redis: redis.url });
  try {
    const { key, info } = await server.server.keys.create('limited in Redis');
    await server.server.keys.updateLimits(info.id, limits);
    const chat = () => api(server, '/v1/chat/completions', { key, body });
    expect((await chat()).status).toBe(200);
    redis.pause();
    expect((await chat()).status).toBe(503);
    redis.resume();
    await expect.poll(async () => (await chat()).status, { timeout: 5000, interval: 250 }).toBe(200);
  } finally {
    await server.stop();
    await redis.stop();
  }
}

describe.skipIf(!available)('a reserve Redis answered after its timeout', () => {
  it("is given back: the key's one slot is free again once Redis answers", async () => {
    await afterALateReserve({ max_in_flight: 1, budgets: ['1/day'] }, hello);
  });

  it("is given back for a budget: the call's worst cost is not held past the 503", async () => {
    // 10,000 output tokens of gpt-4o-mini hold $0.006: a call is admitted while spent and held are under $0.005,
    // so one such hold left behind would refuse every later call.
    await afterALateReserve({ budgets: ['0.005/day'] }, { ...hello, max_tokens: 10_000 });
  });
});
