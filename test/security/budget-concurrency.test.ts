import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../src/budgets/budget-ledger.ts';
import { RedisSpendStore } from '../../src/budgets/redis-counters.ts';
import { BudgetExceededError, createGateway, type GatewayOptions } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { startPostgres } from '../helpers/postgres.ts';
import { startRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer } from '../server/start-test-server.ts';

// gpt-4o-mini at $0.15 / $0.60 per 1M tokens: 1,000 tokens in and 500 out is $0.00045 a call.
const CALL_COST = 0.00045;
const LIMIT = 0.001;
const CONCURRENT = 50;
const prompt = 'x'.repeat(4_000);
/**
 * The 50 calls all in flight at once, as they are against a real provider: no answer comes until every call of the
 * round is either at the provider or refused.
 */
function crowdOf(size: number) {
  let seen = 0;
  let everyone: () => void = () => undefined;
  const gathered = new Promise<void>((resolve) => (everyone = resolve));
  return {
    gathered,
    arrived: () => {
      seen += 1;
      if (seen === size) everyone();
    },
  };
}
let crowd = crowdOf(CONCURRENT);
const slowMock = () =>
  createMockProvider({
    respond: async () => {
      crowd.arrived();
      await crowd.gathered;
      return { content: 'Done.', usage: { prompt_tokens: 1_000, completion_tokens: 500 } };
    },
  });
const ask = (trace: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: prompt }],
  metadata: { trace_id: trace },
  ...extra,
});

/** 50 calls at once on one trace budget of $0.001: what they spent, as a multiple of the budget. */
async function overshoot(gateway: ReturnType<typeof createGateway>, trace: string, extra = {}) {
  crowd = crowdOf(CONCURRENT);
  const settled = await Promise.allSettled(
    Array.from({ length: CONCURRENT }, () =>
      gateway.createCompletion(ask(trace, extra)).catch((refused: unknown) => {
        crowd.arrived();
        throw refused;
      }),
    ),
  );
  let spent = 0;
  for (const result of settled) {
    if (result.status === 'fulfilled') spent += result.value.switchyard.cost_usd ?? 0;
    else expect(result.reason).toBeInstanceOf(BudgetExceededError);
  }
  return { spent, ratio: spent / LIMIT, admitted: settled.filter((result) => result.status === 'fulfilled').length };
}

function gatewayWith(budgets: NonNullable<GatewayOptions['budgets']>) {
  return createGateway({ mock: slowMock(), budgets });
}

describe('budgets under 50 concurrent calls', () => {
  it('in process: spent stays within the budget plus one call', async () => {
    const gateway = gatewayWith({ perTrace: LIMIT });
    const result = await overshoot(gateway, 'memory');
    console.log(`in process: ${result.admitted} admitted, spent ${result.ratio.toFixed(2)}× the budget`);
    expect(result.spent).toBeLessThanOrEqual(LIMIT + CALL_COST + 1e-12);
    // With max_tokens the worst cost is small, so several calls fit and the budget is used, not only one call.
    const bounded = await overshoot(gateway, 'memory-bounded', { max_tokens: 500 });
    console.log(`in process, max_tokens 500: ${bounded.admitted} admitted, spent ${bounded.ratio.toFixed(2)}×`);
    expect(bounded.admitted).toBeGreaterThan(1);
    expect(bounded.spent).toBeLessThanOrEqual(LIMIT + CALL_COST + 1e-12);
  });

  it('a call that fails settles its reservation: the budget is free again for the next call', async () => {
    const mock = createMockProvider({ replies: [{ error: { status: 400, message: 'bad' } }] });
    const gateway = createGateway({ mock, budgets: { perTrace: LIMIT } });
    await expect(gateway.createCompletion(ask('failed'))).rejects.toMatchObject({ status: 400 });
    await expect(gateway.createCompletion(ask('failed'))).resolves.toBeTruthy();
  });
});

const redisServer = await startRedis();
if (!redisServer) console.warn('SKIPPED: budgets on Redis (no redis-server installed; CI installs it).');
afterAll(() => redisServer?.stop());

describe.skipIf(!redisServer)('budgets on Redis under 50 concurrent calls', () => {
  it('through RedisSpendStore: spent stays within the budget plus one call', async () => {
    const redis = new Redis(redisServer!.url);
    try {
      const gateway = gatewayWith({ perTrace: LIMIT, store: new RedisSpendStore(redis) });
      const result = await overshoot(gateway, `redis-${Date.now()}`);
      console.log(`RedisSpendStore: ${result.admitted} admitted, spent ${result.ratio.toFixed(2)}× the budget`);
      expect(result.spent).toBeLessThanOrEqual(LIMIT + CALL_COST + 1e-12);
      const bounded = await overshoot(gateway, `redis-bounded-${Date.now()}`, { max_tokens: 500 });
      console.log(`RedisSpendStore, max_tokens 500: ${bounded.admitted} admitted, spent ${bounded.ratio.toFixed(2)}×`);
      expect(bounded.spent).toBeLessThanOrEqual(LIMIT + CALL_COST + 1e-12);
      // Every call settled its hold.
      for (const key of await redis.keys('switchyard:held:*')) expect(await redis.zcard(key)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('a hold its replica never settles (the replica died) lapses on its own', async () => {
    const redis = new Redis(redisServer!.url);
    try {
      const ledger = new BudgetLedger({ perTrace: LIMIT, store: new RedisSpendStore(redis) });
      const subject = { metadata: { trace_id: `orphan-${Date.now()}` } };
      await ledger.reserve(subject, { usd: LIMIT, tokens: 0 }, { holdMs: 200 });
      await expect(ledger.reserve(subject, { usd: 0, tokens: 0 })).rejects.toThrow('held by calls in flight');
      // The hold lapses on Redis's clock: asked again until it has.
      const admitted = () =>
        ledger.reserve(subject, { usd: 0, tokens: 0 }).then(
          () => true,
          () => false,
        );
      await expect.poll(admitted, { timeout: 10_000, interval: 50 }).toBe(true);
    } finally {
      redis.disconnect();
    }
  });

  it('through two serve replicas sharing Redis: spent stays within the budget plus one call', async () => {
    // The replicas share their keys too (PostgreSQL): a trace is its tenant's, and one key is one tenant.
    const postgres = await startPostgres();
    if (!postgres) return console.warn('SKIPPED: two replicas need PostgreSQL for their keys (CI installs it).');
    const replicas = await Promise.all(
      [0, 1].map(() =>
        startTestServer({
          mock: slowMock(),
          redis: redisServer!.url,
          database: postgres.url,
          gateway: { budgets: { perTrace: LIMIT } },
        }),
      ),
    );
    try {
      const trace = `replicas-${Date.now()}`;
      crowd = crowdOf(CONCURRENT);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, index) => {
          const answer = await api(replicas[index % 2]!, '/v1/chat/completions', {
            method: 'POST',
            body: ask(trace),
            key: replicas[0]!.key,
          });
          if (answer.status !== 200) crowd.arrived();
          return answer;
        }),
      );
      let spent = 0;
      for (const answer of answers) {
        const body = await jsonOf(answer);
        if (answer.status === 200) spent += body.switchyard?.cost_usd ?? 0;
        else expect(answer.status).toBe(402);
      }
      const admitted = answers.filter((answer) => answer.status === 200).length;
      console.log(`two replicas on Redis: ${admitted} admitted, spent ${(spent / LIMIT).toFixed(2)}× the budget`);
      expect(spent).toBeLessThanOrEqual(LIMIT + CALL_COST + 1e-12);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
      await postgres.stop();
    }
  }, 60_000);
});
