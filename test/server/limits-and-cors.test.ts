import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/** Per-key request rate, per-key budgets and CORS on `serve`. */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({
    requestsPerMinutePerKey: 5,
    corsOrigins: ['https://app.example.com'],
    gateway: { budgets: { rules: [{ scope: 'key', usd: 0.000_001, window: 'day' }] } },
  });
});
afterAll(async () => {
  await test.stop();
});

const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('limits per key', () => {
  it('a key over its requests per minute gets 429 with retry-after; another key is unaffected', async () => {
    const { key } = await test.server.keys.create('limited');
    const statuses: number[] = [];
    for (let index = 0; index < 7; index++) statuses.push((await api(test, '/v1/deployments', { key })).status);
    expect(statuses.slice(0, 5).every((status) => status !== 429)).toBe(true);
    const limited = await api(test, '/v1/deployments', { key });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await jsonOf(limited)).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    const other = await test.server.keys.create('other');
    expect((await api(test, '/v1/deployments', { key: other.key })).status).not.toBe(429);
  });

  it("a key's budget counts its calls; a body cannot name another key to dodge it", async () => {
    const { key } = await test.server.keys.create('budgeted');
    const first = await api(test, '/v1/chat/completions', { method: 'POST', key, body: hello });
    expect(first.status).toBe(200);
    const second = await api(test, '/v1/chat/completions', { method: 'POST', key, body: hello });
    expect(second.status).toBe(402);
    expect((await jsonOf(second)).error).toMatchObject({ code: 'insufficient_quota' });
    const dodge = await api(test, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { ...hello, metadata: { api_key_id: 'key_someone_else' } },
    });
    expect(dodge.status).toBe(403);
  });
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin, and refuses one from elsewhere', async () => {
    const preflight = (origin: string) =>
      api(test, '/v1/chat/completions', {
        method: 'OPTIONS',
        key: null,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    const refused = await preflight('https://evil.example.net');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the headers a preflight asks for, when they are a list of header names', async () => {
    const preflight = async (requested: string) => {
      const response = await api(test, '/v1/messages', {
        method: 'OPTIONS',
        key: null,
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': requested,
        },
      });
      const allowed = response.headers.get('access-control-allow-headers');
      return { status: response.status, allowed, vary: response.headers.get('vary') };
    };
    const asked = 'anthropic-dangerous-direct-browser-access,X-Stainless-Helper-Method,mcp-protocol-version,x-new-one';
    expect(await preflight(asked)).toEqual({
      status: 204,
      allowed: asked.toLowerCase(),
      vary: 'origin, access-control-request-headers',
    });
    // Not a list of header names: the known headers instead, never the value itself.
    const odd = await preflight('x-a, <script>');
    expect(odd.allowed).not.toContain('<script>');
    expect(odd.allowed).toContain('authorization');
    // The headers that attribute a call, so a page can send them.
    for (const header of ['x-switchyard-agent-id', 'x-switchyard-trace-id', 'x-switchyard-workflow-name'])
      expect(odd.allowed).toContain(header);
  });

  it('sets the headers on answers for that origin only', async () => {
    const { key } = await test.server.keys.create('cors');
    const from = (origin: string) => api(test, '/v1/deployments', { key, headers: { origin } });
    expect((await from('https://app.example.com')).headers.get('access-control-allow-origin')).toBe(
      'https://app.example.com',
    );
    expect((await from('https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is off by default', async () => {
    const plain = await startTestServer();
    try {
      const response = await api(plain, '/v1/models', { key: null, headers: { origin: 'https://app.example.com' } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await plain.stop();
    }
  });
});
