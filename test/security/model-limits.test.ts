import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/types.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/** A model-limited key stays on its models: no fallback (per request, deployment or gateway) leaves them. */
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let test: TestServer;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  anthropic = await startFakeAnthropicServer();
  test = await startTestServer({
    mock: false,
    gateway: {
      providers: {
        openai: { apiKey: 'sk-openai-test', baseURL: openai.url },
        anthropic: { apiKey: 'sk-ant-test', baseURL: anthropic.url },
      },
      retry: { maxRetries: 0 },
      fallbacks: ['claude-haiku-4-5'],
    },
  });
});
afterAll(async () => {
  await test.stop();
  await openai.close();
  await anthropic.close();
});

async function limitedKey(): Promise<string> {
  const grant = { scopes: ['chat' as const], allowed_agents: null, allowed_models: ['gpt-4o-mini'], expires_at: null };
  return (await test.server.keys.create('limited', { grant })).key;
}

describe('a model-limited key', () => {
  it('is not answered by a fallback outside its models: each is an attempt "not_allowed", never called', async () => {
    const key = await limitedKey();
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    const before = anthropic.requests.length;
    const error = await test
      .openai(key)
      .chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        // @ts-expect-error: Switchyard's own field
        fallbacks: ['claude-opus-4-5'],
      })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(anthropic.requests.length).toBe(before);
    await test.server.gateway.flush();
    const [record] = (await test.server.gateway.calls.list({ limit: 1 })).data;
    const outcomes = record!.attempts.map((attempt: Attempt) => `${attempt.model}:${attempt.outcome}`);
    expect(outcomes[0]).toMatch(/^gpt-4o-mini.*:server_error$/);
    const claude = outcomes.filter((outcome) => outcome.includes('claude'));
    expect(claude.length).toBeGreaterThan(0);
    expect(claude.every((outcome) => outcome.endsWith(':not_allowed'))).toBe(true);

    // The gateway's own fallbacks are held to the same list.
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    await expect(
      test.openai(key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(anthropic.requests.length).toBe(before);
    await test.server.gateway.flush();
    const [second] = (await test.server.gateway.calls.list({ limit: 1 })).data;
    const haiku = second!.attempts.filter((attempt: Attempt) => attempt.model.includes('haiku'));
    expect(haiku.length).toBeGreaterThan(0);
    expect(haiku.every((attempt: Attempt) => attempt.outcome === 'not_allowed')).toBe(true);
  });

  it('is refused with 403 when the request names only models outside its list', async () => {
    const key = await limitedKey();
    const before = anthropic.requests.length;
    const error = await test
      .openai(key)
      .chat.completions.create({ model: 'claude-opus-4-5', messages: [{ role: 'user', content: 'hi' }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(anthropic.requests.length).toBe(before);
  });

  it('is answered by its own model through an alias or a provider prefix', async () => {
    const key = await limitedKey();
    const answer = await test
      .openai(key)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.model).toMatch(/^gpt-4o-mini/);
  });
});
