import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
});
afterAll(async () => {
  await test.stop();
});

interface Created {
  key: string;
  id: string;
  prefix: string;
  scopes: string[];
}

async function mint(by: string, body: Record<string, unknown> = {}): Promise<Created> {
  const response = await api(test, '/v1/keys', { key: by, body: { scopes: ['chat', 'keys:create'], ...body } });
  expect(response.status).toBe(201);
  return jsonOf(response);
}

const idsSeenBy = async (key: string): Promise<string[]> =>
  ((await jsonOf(await api(test, '/v1/keys', { key }))).data as Array<{ id: string }>).map((row) => row.id).sort();

async function mcpTool(key: string, name: string, args: Record<string, unknown> = {}) {
  const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  try {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    return { isError: result.isError === true, text };
  } finally {
    await client.close();
  }
}

describe('/v1/keys and the key tools: a key manages only the keys minted under it', () => {
  it('two trees never see or revoke each other; a child cannot reach its parent; an admin sees all', async () => {
    const a = await mint(test.key, { name: 'team-a' });
    const b = await mint(test.key, { name: 'team-b' });
    const a1 = await mint(a.key, { name: 'a-child' });
    const b1 = await mint(b.key, { name: 'b-child' });
    expect(await idsSeenBy(a.key)).toEqual([a1.id]);
    expect(await idsSeenBy(b.key)).toEqual([b1.id]);
    expect(await idsSeenBy(a1.key)).toEqual([]);
    expect(await idsSeenBy(test.key)).toEqual(expect.arrayContaining([a.id, b.id, a1.id, b1.id]));

    const listing = await (await api(test, '/v1/keys')).text();
    expect(listing).not.toContain('hash');
    for (const { key } of [a, b, a1, b1]) expect(listing).not.toContain(key);

    // Another tree's key, or the parent, is not there for the caller: 404, and it still works.
    for (const [by, target] of [
      [a.key, b1.id],
      [a1.key, a.id],
      [a1.key, b.prefix],
    ] as const)
      expect((await api(test, `/v1/keys/${target}`, { key: by, method: 'DELETE' })).status).toBe(404);
    expect((await api(test, '/v1/keys', { key: b1.key })).status).toBe(200);
    expect((await api(test, '/v1/keys', { key: a.key })).status).toBe(200);

    const revoked = await api(test, `/v1/keys/${a1.prefix}`, { key: a.key, method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(await jsonOf(revoked)).toMatchObject({ id: a1.id, revoked_at: expect.any(String) });
    expect((await api(test, '/v1/keys', { key: a1.key })).status).toBe(401);

    // The admin key revokes in any tree.
    expect((await api(test, `/v1/keys/${b.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(test, '/v1/keys', { key: b1.key })).status).toBe(401);
  });

  it('needs keys:create, never mints wider, and refuses a malformed body', async () => {
    const plain = await mint(test.key, { scopes: ['chat'] });
    expect((await api(test, '/v1/keys', { key: plain.key })).status).toBe(403);
    const limited = await mint(test.key, { allowed_models: ['gpt-4o'] });
    const wider = await api(test, '/v1/keys', { key: limited.key, body: { allowed_models: ['claude-sonnet-4-5'] } });
    expect(wider.status).toBe(403);
    const child = await mint(limited.key);
    expect((await api(test, '/v1/keys', { key: limited.key, body: { scopes: ['calls:read'] } })).status).toBe(403);
    expect(child.scopes).toEqual(['chat', 'keys:create']);
    const bad = await api(test, '/v1/keys', { body: { scopes: ['root'] } });
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error.param).toBe('scopes.0');
  });

  it('list_api_keys and revoke_api_key over MCP follow the same rules', async () => {
    const a = await mint(test.key);
    const b = await mint(test.key);
    const a1 = await mint(a.key);
    const b1 = await mint(b.key);
    const listed = await mcpTool(a.key, 'list_api_keys');
    expect((JSON.parse(listed.text) as Array<{ id: string }>).map((row) => row.id)).toEqual([a1.id]);
    expect(listed.text).not.toContain('hash');
    const refused = await mcpTool(a.key, 'revoke_api_key', { key: b1.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('No key');
    expect((await mcpTool(a1.key, 'revoke_api_key', { key: a.id })).isError).toBe(true);
    expect((await mcpTool(a.key, 'revoke_api_key', { key: a1.id })).isError).toBe(false);
    expect((await api(test, '/v1/keys', { key: a1.key })).status).toBe(401);
    const created = await mcpTool(b1.key, 'create_api_key', { scopes: ['chat'] });
    expect(JSON.parse(created.text)).toMatchObject({ parent_id: b1.id, scopes: ['chat'] });
  });
});
