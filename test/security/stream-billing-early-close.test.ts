import { describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  type CompletionStream,
  createGateway,
  type Gateway,
  LimitExceededError,
} from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer } from '../server/start-test-server.ts';

// About 4,000 prompt tokens (four characters a token), and a long answer of which the caller reads three chunks.
const prompt = 'y'.repeat(16_000);
const answer = 'word '.repeat(2_000);
const ask = (model: string, trace: string) => ({
  model,
  messages: [{ role: 'user' as const, content: prompt }],
  metadata: { trace_id: trace },
  stream: true as const,
});

/** Reads three chunks of a stream and leaves, as a client that disconnects does. */
async function leaveEarly(stream: AsyncIterable<unknown>): Promise<void> {
  let read = 0;
  for await (const _chunk of stream) if (++read === 3) break;
}

async function recordOf(gateway: Gateway, trace: string) {
  await gateway.flush();
  const [record] = (await gateway.calls.list({ trace_id: trace })).data;
  return record!;
}

function expectEstimated(record: Awaited<ReturnType<typeof recordOf>>, promptTokens: number, streamed = 100) {
  expect(record.usage.prompt_tokens).toBeGreaterThanOrEqual(promptTokens);
  expect(record.usage.completion_tokens).toBeGreaterThan(0);
  expect(record.usage.completion_tokens).toBeLessThan(streamed);
  expect(record.cost_usd).toBeGreaterThan(0);
  expect(record.warnings.map((warning) => warning.code)).toContain('usage_estimated');
}

describe('a stream the client leaves is still paid for', () => {
  it('in process on the simulator: estimated usage and cost in the record, the trace budget charged', async () => {
    const gateway = createGateway({ mock: createMockProvider({ replies: [answer] }), budgets: { perTrace: 0.0005 } });
    const stream = (await gateway.createCompletion(ask('gpt-4o-mini', 'left'))) as CompletionStream;
    await leaveEarly(stream);
    expect(stream.switchyard.warnings.map((warning) => warning.code)).toContain('usage_estimated');
    const record = await recordOf(gateway, 'left');
    console.log(`left stream billed: ${JSON.stringify(record.usage)}, $${record.cost_usd}`);
    expectEstimated(record, 4_000);
    // ~4,000 tokens at $0.15 per 1M: $0.0006, past the trace's $0.0005. Spent, not held: the hold was settled.
    const refusal = await gateway.createCompletion(ask('gpt-4o-mini', 'left')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BudgetExceededError);
    expect((refusal as BudgetExceededError).spent).toBeCloseTo(record.cost_usd!, 9);
    expect((refusal as Error).message).not.toContain('held by calls in flight');
  });

  it('through the fake OpenAI server: the key budget of the key and of its parent are charged', async () => {
    const server = await useFakeOpenAIServer();
    server.enqueue({ content: answer });
    const gateway = gatewayAgainst(server.url, {
      budgets: { rules: [{ scope: 'key', usd: 0.005, window: 'day' }] },
    });
    const child = { access: { keyId: 'child', ancestors: ['parent'] } };
    const stream = await gateway.createCompletion(ask('gpt-4o-2024-11-20', 'fake-left'), child);
    await leaveEarly(stream as CompletionStream);
    const record = await recordOf(gateway, 'fake-left');
    expectEstimated(record, 4_000);
    // ~4,000 tokens at $2.50 per 1M: $0.01, past the $0.005 of the child and of its parent.
    for (const access of [{ keyId: 'child' }, { keyId: 'parent' }, { keyId: 'sibling', ancestors: ['parent'] }]) {
      await expect(
        gateway.createCompletion({ ...ask('gpt-4o-2024-11-20', 'next'), stream: false }, { access }),
      ).rejects.toBeInstanceOf(BudgetExceededError);
    }
    await expect(
      gateway.createCompletion({ ...ask('gpt-4o-2024-11-20', 'other'), stream: false }, { access: { keyId: 'other' } }),
    ).resolves.toBeTruthy();
  });

  it('through serve: 20 streams of ~4,000 prompt tokens left early do not pass 2,000 tokens a minute', async () => {
    // 500,000 tokens: more than the sockets buffer, so the server is still relaying when the client goes.
    const long = 'word '.repeat(400_000);
    const test = await startTestServer({
      mock: createMockProvider({ respond: () => long }),
      gateway: {
        budgets: {
          rules: [
            { scope: 'key', tokens: 2_000, window: 'minute' },
            { scope: 'key', usd: 0.002, window: 'day' },
          ],
        },
      },
    });
    try {
      const client = test.openai();
      let admitted = 0;
      let refused = 0;
      for (let index = 0; index < 20; index++) {
        try {
          await leaveEarly(await client.chat.completions.create(ask('gpt-4o-mini', `serve-${index}`)));
          admitted += 1;
        } catch (error) {
          expect(error).toMatchObject({ status: 429 });
          refused += 1;
        }
      }
      console.log(`through serve: ${admitted} of 20 left streams admitted, ${refused} refused`);
      expect(admitted).toBe(1);
      const record = await recordOf(test.server.gateway, 'serve-0');
      console.log(`through serve, the left stream billed: ${JSON.stringify(record.usage)}, $${record.cost_usd}`);
      expectEstimated(record, 4_000, 500_000);
    } finally {
      await test.stop();
    }
  });

  it('a token limit is charged the estimate too: the next call waits for the minute to turn', async () => {
    const gateway = createGateway({
      mock: createMockProvider({ replies: [answer] }),
      budgets: { rules: [{ scope: 'trace', tokens: 3_000, window: 'minute' }] },
    });
    await leaveEarly((await gateway.createCompletion(ask('gpt-4o-mini', 'tpm'))) as CompletionStream);
    const refusal = await gateway.createCompletion(ask('gpt-4o-mini', 'tpm')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LimitExceededError);
    expect((refusal as Error).message).not.toContain('held by calls in flight');
  });
});
