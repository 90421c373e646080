import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.ts';
import type { CompletionResponse } from '../../src/types.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/** Fallbacks that know why: a prompt too long for a model, and (where the caller asks) a content filter. */
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
let gateway: Gateway;
beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
  gateway = createGateway({
    providers: {
      openai: { apiKey: 'sk-openai', baseURL: openai.url },
      anthropic: { apiKey: 'sk-ant', baseURL: anthropic.url },
      google: { apiKey: 'gm-key', baseURL: gemini.url },
    },
    retry: { maxRetries: 2, initialDelayMs: 1 },
  });
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
});

const outcomes = (response: CompletionResponse) =>
  response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`);
const ask = [{ role: 'user' as const, content: 'Hello?' }];

describe('a prompt too long for a candidate', () => {
  it('skips a model whose window the estimate clearly exceeds, without sending it', async () => {
    const before = openai.requests.length;
    gemini.enqueue({ text: 'read it all' });
    // 800,000 ASCII characters: about 200,000 tokens, far past gpt-4o's 128,000.
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallbacks: ['google/gemini-2.5-flash'],
      messages: [{ role: 'user', content: 'a '.repeat(400_000) }],
    });
    expect(response.choices[0]!.message.content).toBe('read it all');
    expect(openai.requests.length).toBe(before);
    expect(outcomes(response)).toEqual(['openai:context_too_long', 'google:ok']);
    expect(response.switchyard.attempts[0]!.message).toMatch(/context window of 128000 tokens/);
  });

  it('counts the output asked for, and sends a prompt that may fit', async () => {
    const prompt = 'a '.repeat(200_000); // about 100,000 tokens: fits 128,000 alone
    const fits = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: prompt }],
    });
    expect(outcomes(fits)).toEqual(['openai:ok']);
    gemini.enqueue({ text: 'room to write' });
    const asksMore = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallbacks: ['google/gemini-2.5-flash'],
      max_tokens: 60_000,
      messages: [{ role: 'user', content: prompt }],
    });
    expect(outcomes(asksMore)).toEqual(['openai:context_too_long', 'google:ok']);
  });

  it('is a 400 context_length_exceeded when no candidate fits', async () => {
    const call = gateway.createCompletion({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'a '.repeat(400_000) }],
    });
    await expect(call).rejects.toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
      attempts: [{ provider: 'openai', outcome: 'context_too_long' }],
    });
  });

  it("moves on, without retrying, from each provider's own context-length error", async () => {
    openai.enqueue({
      error: {
        status: 400,
        code: 'context_length_exceeded',
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      },
    });
    anthropic.enqueue({
      error: {
        status: 400,
        type: 'invalid_request_error',
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
      },
    });
    gemini.enqueue({
      error: {
        status: 400,
        googleStatus: 'INVALID_ARGUMENT',
        message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      },
    });
    openai.enqueue({ content: 'the big one' });
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallbacks: ['anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash', 'openai/gpt-4.1'],
      messages: ask,
    });
    expect(response.choices[0]!.message.content).toBe('the big one');
    expect(outcomes(response)).toEqual([
      'openai:context_length_exceeded',
      'anthropic:context_length_exceeded',
      'google:context_length_exceeded',
      'openai:ok',
    ]);
  });
});

describe('fallback_on: content_filter and refusal', () => {
  it('keeps a filtered answer unless the caller asked to move on', async () => {
    openai.enqueue({ content: null, finish_reason: 'content_filter' });
    const kept = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallbacks: ['anthropic/claude-sonnet-4-5'],
      messages: ask,
    });
    expect(kept.choices[0]!.finish_reason).toBe('content_filter');
    expect(outcomes(kept)).toEqual(['openai:ok']);
  });

  it('moves a filtered answer on to the next candidate, billing both', async () => {
    openai.enqueue({
      content: null,
      finish_reason: 'content_filter',
      usage: { prompt_tokens: 1000, completion_tokens: 0 },
    });
    anthropic.enqueue({
      content: [{ type: 'text', text: 'here it is' }],
      usage: { input_tokens: 1000, output_tokens: 10 },
    });
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallbacks: ['anthropic/claude-sonnet-4-5'],
      fallback_on: ['content_filter'],
      messages: ask,
    });
    expect(response.choices[0]!.message.content).toBe('here it is');
    expect(outcomes(response)).toEqual(['openai:content_filter', 'anthropic:ok']);
    // gpt-4o's 1,000 input tokens ($0.0025) and Claude's 1,000 + 10 ($0.003 + $0.00015).
    expect(response.switchyard.cost_usd).toBeCloseTo(0.00565, 6);
  });

  it("moves on from Gemini's safety stop and from a provider's content-policy error", async () => {
    gemini.enqueue({ text: '', finishReason: 'SAFETY' });
    openai.enqueue({ error: { status: 400, code: 'content_filter', message: 'The prompt was filtered.' } });
    anthropic.enqueue({ content: [{ type: 'text', text: 'third time' }] });
    const response = await gateway.createCompletion({
      model: 'google/gemini-2.5-flash',
      fallbacks: ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5'],
      fallback_on: ['content_filter'],
      messages: ask,
    });
    expect(response.choices[0]!.message.content).toBe('third time');
    expect(outcomes(response)).toEqual(['google:content_filter', 'openai:content_filter', 'anthropic:ok']);
  });

  it('moves a refusal on only with fallback_on: refusal; the last answer stands', async () => {
    openai.enqueue({ content: null, refusal: 'I cannot help with that.' }, { content: null, refusal: 'Nor I.' });
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallbacks: ['openai/gpt-4.1'],
      fallback_on: ['refusal'],
      messages: ask,
    });
    expect(response.choices[0]!.message.refusal).toBe('Nor I.');
    expect(outcomes(response)).toEqual(['openai:refusal', 'openai:ok']);
  });

  it('rejects an unknown reason', async () => {
    const call = gateway.createCompletion({
      model: 'openai/gpt-4o',
      fallback_on: ['slow' as 'refusal'],
      messages: ask,
    });
    await expect(call).rejects.toMatchObject({ status: 400, param: 'fallback_on' });
  });
});
