import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The fault matrix's rows for the other dialects: a rate limit retried, an outage falling back to another model, a
 * stream failing after content, and a provider's refusal of the request, each through the dialect's own SDK.
 */
const upstream = await useFakeOpenAIServer();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 5 },
      providers: {
        openai: { apiKey: 'sk-faults', baseURL: upstream.url },
        groq: { apiKey: 'gsk-faults', baseURL: upstream.url },
      },
    },
  });
});
afterAll(() => server.stop());

const anthropic = () => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });
const openai = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
const rateLimited = { error: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '1' } } };
const outage = { error: { status: 503, message: 'overloaded' } };
const attemptsOf = (body: unknown) =>
  (body as { switchyard: { attempts: Array<{ provider: string; outcome: string }> } }).switchyard.attempts.map(
    (attempt) => `${attempt.provider}:${attempt.outcome}`,
  );

describe('Messages API', () => {
  it('retries a rate limit', async () => {
    upstream.enqueue(rateLimited, { content: 'after the retry' });
    const message = await anthropic().messages.create({
      model: 'gpt-4o-latest',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'after the retry', citations: null }]);
    expect(attemptsOf(message)).toEqual(['openai:rate_limited', 'openai:ok']);
  });

  it('falls back to another model after an outage', async () => {
    upstream.enqueue(outage, outage, { content: 'from the fallback' });
    const message = await anthropic().messages.create({
      model: 'gpt-4o-latest',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      fallbacks: ['groq/llama-3.3-70b-instruct'],
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(message.content[0]).toMatchObject({ text: 'from the fallback' });
    expect(attemptsOf(message)).toEqual([
      'openai:server_error',
      'openai:server_error',
      'azure:missing_credentials',
      'openrouter:missing_credentials',
      'groq:ok',
    ]);
  });

  it('ends a stream that fails after content with an error event the SDK raises', async () => {
    upstream.enqueue({ content: 'partial answer that breaks', streamErrorAfter: 2 });
    const stream = anthropic().messages.stream({
      model: 'gpt-4o-latest',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(stream.finalMessage()).rejects.toThrow();
  });

  it('passes a provider’s 400 on with its status, in Anthropic’s shape', async () => {
    upstream.enqueue({ error: { status: 400, message: 'bad thing', type: 'invalid_request_error' } });
    const error = await anthropic()
      .messages.create({ model: 'gpt-4o-latest', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.error.error.type).toBe('invalid_request_error');
  });
});

describe('Responses API', () => {
  it('retries a rate limit', async () => {
    upstream.enqueue(rateLimited, { content: 'after the retry' });
    const response = await openai().responses.create({ model: 'gpt-4o-latest', input: 'hi' });
    expect(response.output_text).toBe('after the retry');
    expect(attemptsOf(response)).toEqual(['openai:rate_limited', 'openai:ok']);
  });

  it('falls back to another model after an outage, streamed', async () => {
    upstream.enqueue(outage, outage, { content: 'from the fallback' });
    const stream = openai().responses.stream({
      model: 'gpt-4o-latest',
      input: 'hi',
      fallbacks: ['groq/llama-3.3-70b-instruct'],
    } as never);
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('from the fallback');
    expect(final.model).toBe('llama-3.3-70b-instruct');
  });

  it('ends a stream that fails after content with response.failed, then an error event the SDK raises', async () => {
    upstream.enqueue({ content: 'partial answer that breaks', streamErrorAfter: 2 });
    const stream = openai().responses.stream({ model: 'gpt-4o-latest', input: 'hi' });
    await expect(stream.finalResponse()).rejects.toThrow();
    // What Codex reads to tell a failed turn from a dropped connection: response.failed with the response's error.
    upstream.enqueue({ content: 'partial answer that breaks', streamErrorAfter: 2 });
    const seen: Array<{ type: string; response?: { status: string; error: { code: string; message: string } } }> = [];
    const raw = await openai().responses.create({ model: 'gpt-4o-latest', input: 'hi', stream: true });
    await expect(
      (async () => {
        for await (const event of raw) seen.push(event as never);
      })(),
    ).rejects.toThrow();
    const failed = seen.find((event) => event.type === 'response.failed');
    expect(failed?.response).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });
    expect(failed!.response!.error.message.length).toBeGreaterThan(0);
    expect(seen.at(-1)?.type).toBe('response.failed');
  });
});
