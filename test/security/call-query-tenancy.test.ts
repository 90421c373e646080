import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Keys that must not see each other's calls, querying from outside: `POST /v1/calls/query`, `GET /v1/calls/{id}`
 * and the MCP tools `query_completions` and `get_completion`, on SQLite and on PostgreSQL (skipped, saying so,
 * where PostgreSQL is not installed and CI is not set). A filter can narrow what a key reads, never widen it.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: call-query tenancy on PostgreSQL (not installed; CI installs it).');
afterAll(async () => {
  await postgres?.stop();
});
const backends = [
  { name: 'SQLite', database: undefined },
  ...(postgres ? [{ name: 'PostgreSQL', database: postgres.url }] : []),
];

type Row = Record<string, string | number | null>;

describe.each(backends)('$name', ({ database }) => {
  let test: TestServer;
  /** Limited to agent alpha, with calls:read: every call of alpha, nothing else. */
  let alice: { key: string; id: string };
  /** calls:read:own, any agent: its calls and its child's, nothing else. */
  let bob: { key: string; id: string };
  let bobChild: { key: string; id: string };
  /** No read scope at all. */
  let mallory: { key: string; id: string };
  const calls: Record<string, string[]> = { alice: [], bob: [], bobChild: [], admin: [] };

  const base: KeyGrant = { scopes: ['chat'], allowed_agents: null, allowed_models: null, expires_at: null };
  async function keyWith(grant: Partial<KeyGrant>, parentId?: string) {
    const { key, info } = await test.server.keys.create('tenant', {
      grant: { ...base, ...grant },
      ...(parentId ? { parentId } : {}),
    });
    return { key, id: info.id };
  }
  async function call(who: string, key: string, agent: string) {
    const answer = await test.openai(key).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `from ${who}` }],
      metadata: { agent_id: agent },
    });
    calls[who]!.push((answer as unknown as { switchyard: { call_id: string } }).switchyard.call_id);
  }

  beforeAll(async () => {
    test = await startTestServer(database ? { database } : {});
    alice = await keyWith({ scopes: ['chat', 'calls:read'], allowed_agents: ['alpha'] });
    bob = await keyWith({ scopes: ['chat', 'calls:read:own', 'keys:create'] });
    bobChild = await keyWith({ scopes: ['chat'] }, bob.id);
    mallory = await keyWith({});
    await call('alice', alice.key, 'alpha');
    await call('alice', alice.key, 'alpha');
    await call('bob', bob.key, 'beta');
    await call('bob', bob.key, 'alpha');
    await call('bobChild', bobChild.key, 'beta');
    await call('admin', test.key, 'gamma');
  }, 60_000);
  afterAll(async () => {
    await test.stop();
  });

  async function query(key: string, body: unknown): Promise<Row[]> {
    const response = await api(test, '/v1/calls/query', { method: 'POST', body, key });
    expect(response.status, JSON.stringify(body)).toBe(200);
    return (await jsonOf(response)).data;
  }
  const ids = (rows: Row[]) => new Set(rows.map((row) => row.id));

  it("an agent-limited key reads that agent's calls, whoever made them; no filter reaches further", async () => {
    const agents = await query(alice.key, { group_by: ['agent_id'] });
    expect(agents).toEqual([{ agent_id: 'alpha', count: 3 }]);
    expect(ids(await query(alice.key, {}))).toEqual(new Set([...calls.alice!, calls.bob![1]]));
    for (const filter of [{ agent_id: 'beta' }, { agent_id: 'gamma' }, { metadata: { api_key_id: bobChild.id } }])
      expect(await query(alice.key, { filter }), JSON.stringify(filter)).toEqual([]);
    expect(await query(alice.key, { filter: { agent_id: ['alpha', 'beta', 'gamma'] } })).toHaveLength(3);
  });

  it('a calls:read:own key reads its and its descendants\u2019 calls, of every agent, no one else\u2019s', async () => {
    expect(ids(await query(bob.key, {}))).toEqual(new Set([...calls.bob!, ...calls.bobChild!]));
    expect(await query(bob.key, { filter: { metadata: { api_key_id: alice.id } } })).toEqual([]);
    expect(await query(bob.key, { group_by: ['agent_id'], aggregates: [{ fn: 'count' }] })).toEqual([
      { agent_id: 'alpha', count: 1 },
      { agent_id: 'beta', count: 2 },
    ]);
  });

  it('a key without a read scope gets a 403 in the OpenAI error shape', async () => {
    const response = await api(test, '/v1/calls/query', { method: 'POST', body: {}, key: mallory.key });
    expect(response.status).toBe(403);
    expect((await jsonOf(response)).error).toMatchObject({ type: 'permission_error' });
    expect((await api(test, `/v1/calls/${calls.admin![0]}`, { key: mallory.key })).status).toBe(403);
  });

  it('one call by id: the owner and its agent readers see it; anyone else gets the 404 of a missing id', async () => {
    const status = async (key: string, id: string) => (await api(test, `/v1/calls/${id}`, { key })).status;
    expect(await status(alice.key, calls.bob![1]!)).toBe(200);
    expect(await status(alice.key, calls.bob![0]!)).toBe(404);
    expect(await status(bob.key, calls.bobChild![0]!)).toBe(200);
    expect(await status(bob.key, calls.alice![0]!)).toBe(404);
    expect(await status(bob.key, 'no-such-call')).toBe(404);
    const record = await jsonOf(await api(test, `/v1/calls/${calls.alice![0]}`, { key: alice.key }));
    expect(record).toMatchObject({ id: calls.alice![0], agent_id: 'alpha' });
  });

  it('the MCP tools apply the same rules', async () => {
    const connect = async (key: string) => {
      const client = new Client({ name: 'tenant', version: '1.0.0' });
      const headers = { authorization: `Bearer ${key}` };
      await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
      return client;
    };
    const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
      (result.content as Array<{ text: string }>)[0]!.text;
    const aliceClient = await connect(alice.key);
    const queried = await aliceClient.callTool({
      name: 'query_completions',
      arguments: { filter: { agent_id: 'beta' } },
    });
    expect(JSON.parse(text(queried)).data).toEqual([]);
    const own = await aliceClient.callTool({ name: 'query_completions', arguments: {} });
    expect(ids(JSON.parse(text(own)).data)).toEqual(new Set([...calls.alice!, calls.bob![1]]));
    const stranger = await aliceClient.callTool({ name: 'get_completion', arguments: { id: calls.bob![0] } });
    expect(stranger.isError).toBe(true);
    expect(text(stranger)).toContain('No call has the id');
    const readable = await aliceClient.callTool({ name: 'get_completion', arguments: { id: calls.bob![1] } });
    expect(JSON.parse(text(readable))).toMatchObject({ id: calls.bob![1], agent_id: 'alpha' });
    await aliceClient.close();

    const malloryClient = await connect(mallory.key);
    const refused = await malloryClient.callTool({ name: 'query_completions', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('calls:read');
    await malloryClient.close();
  });
});
