import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_CHILDREN } from '../../src/server/api-keys.ts';
import { ADMIN_GRANT, type KeyGrant } from '../../src/server/key-scopes.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/** Keys with scopes and lineage on `serve`: the MCP-minted-key escalation, and each scope's routes. */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
});
afterAll(async () => {
  await test.stop();
});

const grant = (overrides: Partial<KeyGrant>): KeyGrant => ({ ...ADMIN_GRANT, ...overrides });
const keyWith = (overrides: Partial<KeyGrant>) => test.server.keys.create('scoped', { grant: grant(overrides) });

async function mcp(key: string): Promise<Client> {
  const client = new Client({ name: 'scopes-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  return client;
}

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };
const mint = async (client: Client, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name: 'create_api_key', arguments: args })) as ToolResult;

describe('keys minted over MCP', () => {
  it('a key without keys:create cannot mint (the escalation this closes)', async () => {
    const { key } = await keyWith({ scopes: ['chat', 'models'] });
    const before = (await test.server.keys.list()).length;
    const client = await mcp(key);
    const result = await mint(client, { name: 'escalated' });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('lacks the scope "keys:create"');
    expect(await test.server.keys.list()).toHaveLength(before);
    await client.close();
  });

  it('a child is never wider than its parent, and does not mint further unless asked', async () => {
    const parent = await keyWith({ scopes: ['chat', 'keys:create'], allowed_agents: ['support'] });
    const client = await mcp(parent.key);
    const wider = await mint(client, { scopes: ['chat', 'calls:read'] });
    expect(wider.isError).toBe(true);
    expect(wider.content[0]!.text).toContain('calls:read');
    const otherAgent = await mint(client, { allowed_agents: ['billing'] });
    expect(otherAgent.content[0]!.text).toContain('billing');
    const child = JSON.parse((await mint(client, { name: 'child' })).content[0]!.text);
    expect(child).toMatchObject({ scopes: ['chat'], allowed_agents: ['support'], parent_id: parent.info.id });
    const grandchild = await mint(await mcp(child.key));
    expect(grandchild.content[0]!.text).toContain('keys:create');
    await client.close();
  });

  it('revoking a key revokes every key minted under it, at once', async () => {
    const parent = await keyWith({ scopes: ['chat', 'models', 'keys:create'] });
    const client = await mcp(parent.key);
    const child = JSON.parse((await mint(client, { scopes: ['chat', 'models', 'keys:create'] })).content[0]!.text);
    const grandchild = JSON.parse((await mint(await mcp(child.key), { scopes: ['chat'] })).content[0]!.text);
    const ask = (key: string) =>
      api(test, '/v1/chat/completions', { method: 'POST', key, body: { model: 'gpt-4o-mini', messages: [] } });
    expect((await ask(grandchild.key)).status).not.toBe(401);
    await test.server.keys.revoke(parent.info.id);
    for (const key of [parent.key, child.key, grandchild.key]) {
      const response = await ask(key);
      expect(response.status).toBe(401);
      expect((await jsonOf(response)).error.message).toContain('revoked');
    }
    await client.close();
  });

  it(`a key mints at most ${MAX_ACTIVE_CHILDREN} active keys`, async () => {
    const parent = await keyWith({ scopes: ['chat', 'keys:create'] });
    const client = await mcp(parent.key);
    const results = await Promise.all(Array.from({ length: MAX_ACTIVE_CHILDREN + 5 }, () => mint(client)));
    expect(results.filter((result) => !result.isError)).toHaveLength(MAX_ACTIVE_CHILDREN);
    expect(results.find((result) => result.isError)!.content[0]!.text).toContain('the limit');
    await client.close();
  });
});

describe('scopes on the HTTP routes', () => {
  it('calls:read:own reads the calls made with the key (and keys minted under it), whatever their agent', async () => {
    const { key, info } = await keyWith({ scopes: ['chat', 'calls:read:own'], allowed_agents: ['support'] });
    await api(test, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], metadata: { agent_id: 'support' } },
    });
    const own = await jsonOf(await api(test, '/v1/calls', { key }));
    expect(own.data.length).toBeGreaterThan(0);
    expect(
      own.data.every((record: { metadata: { api_key_id?: string } }) => record.metadata.api_key_id === info.id),
    ).toBe(true);
    const denied = await api(test, '/v1/agents', { key });
    expect(denied.status).toBe(403);
    expect((await jsonOf(denied)).error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
  });

  it('a key limited to some models and agents calls only those', async () => {
    const { key } = await keyWith({
      scopes: ['chat'],
      allowed_models: ['gpt-4o-mini'],
      allowed_agents: ['support', 'billing'],
    });
    const call = (model: string, agent?: string) =>
      api(test, '/v1/chat/completions', {
        method: 'POST',
        key,
        body: {
          model,
          messages: [{ role: 'user', content: 'hi' }],
          ...(agent ? { metadata: { agent_id: agent } } : {}),
        },
      });
    expect((await call('gpt-4o-mini', 'support')).status).toBe(200);
    expect((await call('claude-sonnet-4-5', 'support')).status).toBe(403);
    expect((await call('gpt-4o-mini', 'sales')).status).toBe(403);
    // With several agents to act as, the call must name one.
    expect((await call('gpt-4o-mini')).status).toBe(403);
    const viaHeader = await api(test, '/v1/chat/completions', {
      method: 'POST',
      key,
      headers: { 'x-switchyard-agent-id': 'support' },
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(viaHeader.status).toBe(200);
  });

  it('deployments need deployments:read / :write; an expired key is refused', async () => {
    const { key } = await keyWith({ scopes: ['chat'] });
    expect((await api(test, '/v1/deployments', { key })).status).toBe(403);
    const expired = await keyWith({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const response = await api(test, '/v1/deployments', { key: expired.key });
    expect(response.status).toBe(401);
    expect((await jsonOf(response)).error.message).toContain('expired');
  });
});
