import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type GatewayOptions } from '../../src/index.ts';
import { KEY_REST } from '../../src/providers/key-slots.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

/** Several keys per provider, through the openai SDK against the fake OpenAI server. */
const server = await useFakeOpenAIServer();
afterEach(() => {
  server.respondWith = undefined;
});
const hello = { model: 'gpt-4o-latest', messages: [{ role: 'user' as const, content: 'hi' }] };
const rateLimited = { error: { status: 429, message: 'Rate limit reached', type: 'rate_limit_error' } };
const keyOf = (index: number) => server.requests[index]!.headers.authorization;
const gatewayWith = (providers: NonNullable<GatewayOptions['providers']>, env: Record<string, string> = {}) =>
  createGateway({ catalog: testCatalog, env, providers, retry: { maxRetries: 0, initialDelayMs: 1 } });

describe('several keys per provider', () => {
  it('a 429 on one key is answered by the other before any other provider, both in the attempt chain', async () => {
    const gateway = gatewayWith({
      openai: {
        baseURL: server.url,
        keys: [
          { apiKey: 'sk-one', label: 'team-a' },
          { apiKey: 'sk-two', label: 'team-b' },
        ],
      },
    });
    server.enqueue(rateLimited);
    const response = await gateway.createCompletion(hello);
    const [first, second] = response.switchyard.attempts;
    expect(first).toMatchObject({ provider: 'openai', outcome: 'rate_limited', status: 429 });
    expect(second).toMatchObject({ provider: 'openai', outcome: 'ok' });
    expect(new Set([first!.key, second!.key])).toEqual(new Set(['team-a', 'team-b']));
    expect(keyOf(0)).not.toBe(keyOf(1));
    // Labels only: the keys themselves appear nowhere in the answer.
    expect(JSON.stringify(response)).not.toContain('sk-one');
  });

  it('<NAME>_API_KEY may hold a comma-separated list', async () => {
    const gateway = gatewayWith({ openai: { baseURL: server.url } }, { OPENAI_API_KEY: 'sk-env-1, sk-env-2' });
    server.enqueue(rateLimited);
    const response = await gateway.createCompletion(hello);
    expect(response.switchyard.attempts.map((attempt) => attempt.key).sort()).toEqual(['openai#1', 'openai#2']);
    expect([keyOf(0), keyOf(1)].sort()).toEqual(['Bearer sk-env-1', 'Bearer sk-env-2']);
  });

  it(`a key refused ${KEY_REST.failures} times in a row rests: later calls do not try it`, async () => {
    const gateway = gatewayWith({
      openai: {
        baseURL: server.url,
        keys: [
          { apiKey: 'sk-revoked', label: 'old' },
          { apiKey: 'sk-good', label: 'new' },
        ],
      },
    });
    server.respondWith = (_body, headers) =>
      headers.authorization === 'Bearer sk-revoked'
        ? { error: { status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' } }
        : { content: 'ok' };
    for (let call = 0; call < 30; call++) {
      const response = await gateway.createCompletion(hello);
      expect(response.switchyard.attempts.at(-1)).toMatchObject({ key: 'new', outcome: 'ok' });
    }
    const refused = server.requests.filter((request) => request.headers.authorization === 'Bearer sk-revoked');
    expect(refused.length).toBe(KEY_REST.failures);
  });

  it('with one key, attempts name no key (as before)', async () => {
    const gateway = gatewayWith({ openai: { baseURL: server.url, apiKey: 'sk-only' } });
    const response = await gateway.createCompletion(hello);
    expect(response.switchyard.attempts[0]).not.toHaveProperty('key');
  });

  it('weights share the first tries between keys', async () => {
    const gateway = gatewayWith({
      openai: {
        baseURL: server.url,
        keys: [
          { apiKey: 'sk-big', weight: 9 },
          { apiKey: 'sk-small', weight: 1 },
        ],
      },
    });
    for (let call = 0; call < 200; call++) await gateway.createCompletion(hello);
    const big = server.requests.filter((request) => request.headers.authorization === 'Bearer sk-big').length;
    // 9:1 expected (180 of 200); the bounds hold but for odds below one in a million.
    expect(big).toBeGreaterThan(150);
    expect(big).toBeLessThan(200);
  });
});
