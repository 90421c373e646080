import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';

/** One HTTP request carrying N MCP calls pays N requests of the key's rate limit. */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ requestsPerMinutePerKey: 3 });
});
afterAll(async () => {
  await test.stop();
});

const batch = (n: number) =>
  Array.from({ length: n }, (_, index) => ({ jsonrpc: '2.0', id: index + 1, method: 'tools/list', params: {} }));
const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };

describe('MCP batches and --rate-limit', () => {
  it('a batch of 5 calls is refused under a limit of 3 a minute; a batch of 2 is not', async () => {
    const first = await test.server.keys.create('one');
    const refused = await api(test, '/mcp', { method: 'POST', key: first.key, body: batch(5), headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const second = await test.server.keys.create('two');
    const allowed = await api(test, '/mcp', { method: 'POST', key: second.key, body: batch(2), headers });
    expect(allowed.status).not.toBe(429);
    // The batch took two of the three: one more request passes, the next does not.
    expect((await api(test, '/mcp', { method: 'POST', key: second.key, body: batch(1)[0], headers })).status).not.toBe(
      429,
    );
    expect((await api(test, '/mcp', { method: 'POST', key: second.key, body: batch(1)[0], headers })).status).toBe(429);
  });

  it('a key minted under one at its rate limit is refused too: requests count against every ancestor', async () => {
    // A team's key (not an admin key): the keys it mints are in its tenant, and count against it.
    const parent = await test.server.keys.create('parent', {
      grant: {
        scopes: ['chat', 'models', 'deployments:read', 'keys:create'],
        allowed_agents: null,
        allowed_models: null,
        expires_at: null,
      },
    });
    for (let index = 0; index < 3; index++)
      expect((await api(test, '/v1/deployments', { key: parent.key })).status).toBe(200);
    const child = await test.server.keys.create('child', {
      grant: { scopes: ['chat', 'models'], allowed_agents: null, allowed_models: null, expires_at: null },
      parentId: parent.info.id,
    });
    const refused = await api(test, '/v1/chat/completions', {
      method: 'POST',
      key: child.key,
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(refused.status).toBe(429);
  });
});
