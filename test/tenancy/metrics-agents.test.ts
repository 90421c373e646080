import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Issue 36, item 14: a `metrics:read` key limited to some agents scraped every agent's series (tokens and cost by
 * agent, model and provider). The metrics span every agent and cannot be cut to some, so such a key is refused
 * them, as the workflow page refuses it; a key for every agent scrapes as before.
 */
let test: TestServer;
const grant = (scopes: KeyGrant['scopes'], agents: string[] | null): KeyGrant => ({
  scopes,
  allowed_agents: agents,
  allowed_models: null,
  expires_at: null,
});
const keys = { alpha: '', beta: '', betaMetrics: '', allMetrics: '' };

beforeAll(async () => {
  test = await startTestServer({ metrics: true });
  const make = async (name: string, value: KeyGrant) => (await test.server.keys.create(name, { grant: value })).key;
  keys.alpha = await make('alpha', grant(['chat'], ['alpha']));
  keys.beta = await make('beta', grant(['chat'], ['beta']));
  keys.betaMetrics = await make('beta-metrics', grant(['metrics:read'], ['beta']));
  keys.allMetrics = await make('metrics', grant(['metrics:read'], null));
  for (const [key, agent] of [
    [keys.alpha, 'alpha'],
    [keys.beta, 'beta'],
  ] as const) {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], metadata: { agent_id: agent } };
    expect((await api(test, '/v1/chat/completions', { key, body })).status).toBe(200);
  }
  await test.server.gateway.flush();
});
afterAll(() => test?.stop());

describe('GET /metrics and a key limited to agents', () => {
  it('refuses it, saying why, and shows it no other agent’s series', async () => {
    const response = await api(test, '/metrics', { key: keys.betaMetrics });
    const body = await response.text();
    expect(response.status).toBe(403);
    expect(body).not.toContain('agent="alpha"');
    expect(JSON.parse(body).error).toMatchObject({
      type: 'permission_error',
      code: 'insufficient_permissions',
      message: expect.stringMatching(/every agent/),
    });
  });

  it('serves a key for every agent', async () => {
    const response = await api(test, '/metrics', { key: keys.allMetrics });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('agent="alpha"');
    expect(text).toContain('agent="beta"');
  });

  it('the refusal is the metrics route’s alone: the limited key is otherwise a key', async () => {
    const response = await api(test, '/v1/models', { key: keys.betaMetrics });
    expect(response.status, JSON.stringify(await jsonOf(response.clone()))).toBe(200);
  });
});
