import { describe, expect, it } from 'vitest';
import { slotKey } from '../src/budgets/budget-slots.ts';
import { worstCost } from '../src/budgets/estimate-cost.ts';
import { BudgetExceededError, createGateway, LimitExceededError } from '../src/index.ts';
import { createMockProvider } from '../src/testing/index.ts';
import { startTestServer } from './server/start-test-server.ts';

// gpt-4o-mini: $0.15 / $0.60 per 1M tokens; 10,000 in and 10,000 out is $0.0075 a call.
const costly = () =>
  createMockProvider({
    respond: () => ({ content: 'Working on it…', usage: { prompt_tokens: 10_000, completion_tokens: 10_000 } }),
  });
const ask = (traceId: string, extra: Record<string, string> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'Continue.' }],
  metadata: { trace_id: traceId, agent_id: 'looper', ...extra },
});

describe('budgets', () => {
  it('perTrace stops a runaway agent: its next call after the trace spent its budget is refused', async () => {
    const gateway = createGateway({ mock: costly(), budgets: { perTrace: 0.02 } });
    let calls = 0;
    let refusal: unknown;
    for (let turn = 0; turn < 100 && !refusal; turn++) {
      try {
        const response = await gateway.createCompletion(ask('run-1'));
        expect(response.switchyard.cost_usd).toBeCloseTo(0.0075, 10);
        calls += 1;
      } catch (error) {
        refusal = error;
      }
    }
    // $0.0075, $0.015, $0.0225: the third call passes the budget, the fourth is refused.
    expect(calls).toBe(3);
    expect(refusal).toBeInstanceOf(BudgetExceededError);
    expect(refusal).toMatchObject({ status: 402, code: 'insufficient_quota', type: 'insufficient_quota' });
    expect((refusal as Error).message).toContain('the trace "run-1" has spent its budget of $0.02');
    // Another trace has its own budget; the refused call was never sent, so it cost nothing.
    await expect(gateway.createCompletion(ask('run-2'))).resolves.toBeTruthy();
    await gateway.flush();
    const refused = (await gateway.calls.list({ trace_id: 'run-1' })).data.filter((call) => call.status === 'error');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ cost_usd: 0, error: expect.objectContaining({ code: 'insufficient_quota' }) });
  });

  it('rules per agent and day count every trace of the agent', async () => {
    const gateway = createGateway({
      mock: costly(),
      budgets: { rules: [{ scope: 'agent', usd: 0.01, window: 'day' }] },
    });
    await gateway.createCompletion(ask('a'));
    await gateway.createCompletion(ask('b'));
    await expect(gateway.createCompletion(ask('c'))).rejects.toThrow('the agent "looper" has spent its budget');
    await expect(gateway.createCompletion(ask('d', { agent_id: 'other' }))).resolves.toBeTruthy();
  });

  it('a token limit per minute refuses the next call with 429 and the wait until the minute turns', async () => {
    const gateway = createGateway({
      mock: costly(),
      budgets: { rules: [{ scope: 'agent', tokens: 30_000, window: 'minute' }] },
    });
    // 20,000 tokens a call: the second call passes the limit, the third waits for the next minute.
    await gateway.createCompletion(ask('t'));
    await gateway.createCompletion(ask('t'));
    const error = await gateway.createCompletion(ask('t')).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((error as LimitExceededError).retryAfterMs).toBeGreaterThan(0);
    expect((error as LimitExceededError).retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('serve answers a spent budget with 402 insufficient_quota in the OpenAI shape', async () => {
    const test = await startTestServer({ mock: costly(), gateway: { budgets: { perTrace: 0.005 } } });
    try {
      const client = test.openai();
      await client.chat.completions.create(ask('serve-run') as never);
      const error = await client.chat.completions.create(ask('serve-run') as never).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ status: 402, code: 'insufficient_quota', type: 'insufficient_quota' });
    } finally {
      await test.stop();
    }
  });

  it('serve: tokens per minute per key, 429 with retry-after', async () => {
    const test = await startTestServer({
      mock: costly(),
      gateway: { budgets: { rules: [{ scope: 'key', tokens: 15_000, window: 'minute' }] } },
    });
    try {
      const client = test.openai();
      await client.chat.completions.create(ask('tpm') as never);
      const response = await fetch(`${test.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(ask('tpm')),
      });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
      });
    } finally {
      await test.stop();
    }
  });
});

describe('budgets and skipped candidates', () => {
  it('hold the worst cost of the candidates that may run, not of a fallback the key may not use', async () => {
    // gpt-4o-mini writing 1,000 tokens at most costs $0.0006; Claude Opus would cost $0.025. Only the first may run.
    const gateway = createGateway({ mock: true, budgets: { perTrace: 0.002 } });
    const call = (stream: boolean) =>
      gateway.createCompletion(
        {
          model: 'gpt-4o-mini',
          fallbacks: ['claude-opus-4-5-20251101'],
          max_tokens: 1_000,
          messages: [{ role: 'user', content: 'Hello' }],
          metadata: { trace_id: 'skips' },
          stream,
        },
        { access: { models: ['gpt-4o-mini'] } },
      );
    // An open stream holds its worst cost until it ends; a second call is admitted while spent + held < $0.002.
    const open = (await call(true)) as AsyncIterable<unknown>;
    const second = (await call(false)) as { choices: Array<{ message: { content: string | null } }> };
    expect(second.choices[0]?.message.content).toBeTruthy();
    for await (const _ of open);
    await gateway.close();
  });
});

describe('budgets over values callers name', () => {
  it('keep a bounded counter a value, however long the value: a megabyte trace id is not a megabyte of memory', () => {
    const rule = { scope: 'trace' as const, usd: 1, window: 'lifetime' as const };
    const now = new Date('2026-11-29T12:00:00Z');
    const long = 'x'.repeat(1_000_000);
    expect(slotKey(rule, long, now).length).toBeLessThan(400);
    expect(slotKey(rule, long, now)).toBe(slotKey(rule, 'x'.repeat(1_000_000), now));
    expect(slotKey(rule, long, now)).not.toBe(slotKey(rule, `${long}y`, now));
    expect(slotKey(rule, 'run-1', now)).toContain('run-1');
  });

  it('count two long trace ids apart, and one long trace id as one', async () => {
    const gateway = createGateway({ mock: costly(), budgets: { perTrace: 0.01 } });
    const first = `${'t'.repeat(5_000)}-1`;
    await gateway.createCompletion(ask(first));
    await gateway.createCompletion(ask(first));
    await expect(gateway.createCompletion(ask(first))).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(gateway.createCompletion(ask(`${'t'.repeat(5_000)}-2`))).resolves.toBeTruthy();
    await gateway.close();
  });
});

describe("a call's worst cost", () => {
  it('holds no more output than its models can write: a max_tokens past that is held at the model’s most', () => {
    const model = {
      model: { max_output_tokens: 16_384 },
      offering: { pricing: { input: 0.15, output: 0.6, cached_input: 0.075 } },
    };
    const larger = {
      model: { max_output_tokens: 32_768 },
      offering: { pricing: { input: 0.1, output: 0.4, cached_input: 0.05 } },
    };
    const body = { messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 190_000 };
    expect(worstCost(body, [model])).toEqual(worstCost({ ...body, max_tokens: 16_384 }, [model]));
    // Tokens: the most any candidate may write; dollars: each candidate at its own most.
    expect(worstCost(body, [model, larger]).tokens).toBe(worstCost({ ...body, max_tokens: 32_768 }, [larger]).tokens);
    expect(worstCost({ ...body, max_tokens: 1_000 }, [model]).tokens).toBeLessThan(worstCost(body, [model]).tokens);
  });
});
