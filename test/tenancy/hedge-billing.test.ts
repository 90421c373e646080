import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetExceededError, createGateway, type GatewayOptions, LimitExceededError } from '../../src/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { api, jsonOf, startTestServer } from '../server/start-test-server.ts';

/**
 * Both sides of a hedge are paid for (issue 36, item 5): the losing request received the whole prompt and its
 * provider bills it. The first candidate (Anthropic's fake, Claude Sonnet 4.5 at $3 / $15 per 1M tokens) is slow;
 * the hedge (OpenAI's fake, GPT-4o at $2.50 / $10) answers at once and wins.
 */
const anthropic = await startFakeAnthropicServer();
const openai = await startFakeOpenAIServer();
afterAll(() => Promise.all([anthropic.close(), openai.close()]));

/** 40,000 characters: 10,000 prompt tokens, which each provider reads whole. */
const PROMPT_TOKENS = 10_000;
const prompt = 'x'.repeat(PROMPT_TOKENS * 4);
openai.respondWith = () => ({
  content: 'From the hedge.',
  usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: 5 },
});
/** What the providers bill for one hedged call: Anthropic the prompt it read, OpenAI the prompt and 5 tokens. */
const LOSER_USD = (PROMPT_TOKENS * 3) / 1e6;
const WINNER_USD = (PROMPT_TOKENS * 2.5 + 5 * 10) / 1e6;
const SLOW = { delayMs: 3_000, content: [{ type: 'text' as const, text: 'Too late.' }] };

const providers = {
  anthropic: { apiKey: 'sk-ant-test', baseURL: anthropic.url },
  openai: { apiKey: 'sk-openai-test', baseURL: openai.url },
};
const gatewayWith = (budgets: NonNullable<GatewayOptions['budgets']>) =>
  createGateway({ env: {}, providers, retry: { maxRetries: 0 }, hedge: { afterMs: 50 }, budgets });
const call = {
  model: 'anthropic/claude-sonnet-4-5',
  fallbacks: ['openai/gpt-4o'],
  messages: [{ role: 'user' as const, content: prompt }],
  max_tokens: 5,
};
const tenant = { access: { keyId: 'tenant-a' } };

/** Anthropic's fake is slow unless a test queues a reply of its own. */
anthropic.respondWith = () => SLOW;

// Each provider's SDK loaded once before the hedges: a first request still loading its SDK when the hedge is due
// would have sent nothing.
beforeAll(async () => {
  const gateway = createGateway({ env: {}, providers, retry: { maxRetries: 0 } });
  anthropic.enqueue({});
  for (const model of [call.model, ...call.fallbacks])
    await gateway.createCompletion({ model, messages: [{ role: 'user', content: 'Warm up.' }], max_tokens: 5 });
  await gateway.close();
});

describe('a hedged call pays for both requests it sent', () => {
  it('the loser is charged its prompt (estimated): in the cost, the record and the budget', async () => {
    // Past the winner's $0.025, within the $0.055 both sides cost.
    const gateway = gatewayWith({ rules: [{ scope: 'key', usd: 0.04, window: 'day' }] });
    const response = await gateway.createCompletion(call, tenant);
    expect(response.choices[0]!.message.content).toBe('From the hedge.');
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['hedge_lost', 'ok']);
    expect(response.switchyard.cost_usd).toBeGreaterThanOrEqual(WINNER_USD + LOSER_USD * 0.95);
    expect(response.switchyard.warnings.map((warning) => warning.code)).toContain('usage_estimated');
    await gateway.flush();
    const record = await gateway.calls.get!(response.switchyard.call_id);
    expect(record?.cost_usd).toBe(response.switchyard.cost_usd);
    await expect(gateway.createCompletion(call, tenant)).rejects.toBeInstanceOf(BudgetExceededError);
    await gateway.close();
  });

  it('a token limit counts both requests: the loser’s prompt too', async () => {
    // The winner reports 10,005 tokens and the loser read 10,000: past 15,000 a minute together, not alone.
    const gateway = gatewayWith({ rules: [{ scope: 'key', tokens: 15_000, window: 'minute' }] });
    await gateway.createCompletion(call, tenant);
    await expect(gateway.createCompletion(call, tenant)).rejects.toBeInstanceOf(LimitExceededError);
    await gateway.close();
  });

  it('a streamed hedged call charges its loser too', async () => {
    const gateway = gatewayWith({ rules: [{ scope: 'key', usd: 0.04, window: 'day' }] });
    const stream = await gateway.createCompletion({ ...call, stream: true }, tenant);
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('From the hedge.');
    await gateway.flush();
    const record = await gateway.calls.get!(stream.switchyard.call_id);
    expect(record?.attempts.map((attempt) => attempt.outcome)).toEqual(['hedge_lost', 'ok']);
    expect(record?.cost_usd).toBeGreaterThanOrEqual(LOSER_USD * 0.95);
    expect(record?.warnings.map((warning) => warning.code)).toContain('usage_estimated');
    await expect(gateway.createCompletion(call, tenant)).rejects.toBeInstanceOf(BudgetExceededError);
    await gateway.close();
  });

  it('concurrent hedged calls hold both candidates: the providers bill the budget and one call at most', async () => {
    const budget = 0.15;
    const gateway = gatewayWith({ rules: [{ scope: 'key', usd: budget, window: 'day' }] });
    const sent = { anthropic: anthropic.requests.length, openai: openai.requests.length };
    const settled = await Promise.allSettled(Array.from({ length: 8 }, () => gateway.createCompletion(call, tenant)));
    for (const result of settled)
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(BudgetExceededError);
    const billed =
      (anthropic.requests.length - sent.anthropic) * LOSER_USD + (openai.requests.length - sent.openai) * WINNER_USD;
    expect(billed).toBeLessThanOrEqual(budget + LOSER_USD + WINNER_USD);
    await gateway.close();
  });
});

describe('a hedge counts against the key’s request rate as the request it makes', () => {
  const serve = (requestsPerMinutePerKey: number, afterMs = 50) =>
    startTestServer({
      mock: false,
      requestsPerMinutePerKey,
      gateway: { env: {}, providers, retry: { maxRetries: 0 }, hedge: { afterMs } },
    });
  const chat = (server: Awaited<ReturnType<typeof serve>>, key: string) =>
    api(server, '/v1/chat/completions', { key, body: { ...call, messages: [{ role: 'user', content: 'Hi.' }] } });
  const mint = async (server: Awaited<ReturnType<typeof serve>>) =>
    (await jsonOf(await api(server, '/v1/keys', { body: { scopes: ['chat'] } }))).key as string;

  it('a hedged call takes two requests of the rate: the next call is refused', async () => {
    const server = await serve(2);
    try {
      const key = await mint(server);
      const hedged = await chat(server, key);
      expect(hedged.status).toBe(200);
      expect((await jsonOf(hedged)).switchyard.attempts.map((a: { outcome: string }) => a.outcome)).toEqual([
        'hedge_lost',
        'ok',
      ]);
      expect((await chat(server, key)).status).toBe(429);
    } finally {
      await server.stop();
    }
  });

  it('a hedge the rate has no room for is not sent, and the answer says so', async () => {
    const server = await serve(1);
    try {
      const key = await mint(server);
      anthropic.enqueue({ delayMs: 300, content: [{ type: 'text', text: 'In my own time.' }] });
      const before = openai.requests.length;
      const answer = await jsonOf(await chat(server, key));
      expect(answer.choices[0].message.content).toBe('In my own time.');
      expect(answer.switchyard.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['ok']);
      expect(answer.switchyard.warnings.map((w: { code: string }) => w.code)).toContain('hedge_not_sent');
      expect(openai.requests.length).toBe(before);
    } finally {
      await server.stop();
    }
  });
});
