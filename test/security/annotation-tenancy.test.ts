import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Keys that must not annotate or read each other's calls' annotations, from outside: `POST` / `GET /v1/annotations`
 * and the MCP tools `add_annotations` / `get_annotations` (the official SDK client), on SQLite and on PostgreSQL
 * (skipped, saying so, where PostgreSQL is not installed and CI is not set).
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: annotation tenancy on PostgreSQL (not installed; CI installs it).');
afterAll(async () => {
  await postgres?.stop();
});
const backends = [
  { name: 'SQLite', database: undefined },
  ...(postgres ? [{ name: 'PostgreSQL', database: postgres.url }] : []),
];

type Key = { key: string; id: string };

describe.each(backends)('$name', ({ database }) => {
  let test: TestServer;
  /** Agent alpha, calls:read and annotations:write. */
  let alice: Key;
  /** Every agent, calls:read:own and annotations:write: its own calls only. */
  let bob: Key;
  /** annotations:write alone, agent alpha: end-user feedback. */
  let feedback: Key;
  /** chat alone. */
  let mallory: Key;
  const calls: Record<'alice' | 'bobBeta' | 'bobAlpha' | 'admin', string> = {
    alice: '',
    bobBeta: '',
    bobAlpha: '',
    admin: '',
  };

  const base: KeyGrant = { scopes: ['chat'], allowed_agents: null, allowed_models: null, expires_at: null };
  async function keyWith(grant: Partial<KeyGrant>): Promise<Key> {
    const { key, info } = await test.server.keys.create('tenant', { grant: { ...base, ...grant } });
    return { key, id: info.id };
  }
  async function call(key: string, agent: string): Promise<string> {
    const answer = await test.openai(key).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
      metadata: { agent_id: agent },
    });
    return (answer as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
  }
  const annotate = (key: string, body: unknown) => api(test, '/v1/annotations', { method: 'POST', body, key });
  async function list(key: string, query = ''): Promise<Array<Record<string, unknown>>> {
    const response = await api(test, `/v1/annotations${query}`, { key });
    expect(response.status, query).toBe(200);
    return (await jsonOf(response)).data;
  }

  beforeAll(async () => {
    test = await startTestServer(database ? { database } : {});
    alice = await keyWith({ scopes: ['chat', 'calls:read', 'annotations:write'], allowed_agents: ['alpha'] });
    bob = await keyWith({ scopes: ['chat', 'calls:read:own', 'annotations:write'] });
    feedback = await keyWith({ scopes: ['annotations:write'], allowed_agents: ['alpha'] });
    mallory = await keyWith({});
    calls.alice = await call(alice.key, 'alpha');
    calls.bobBeta = await call(bob.key, 'beta');
    calls.bobAlpha = await call(bob.key, 'alpha');
    calls.admin = await call(test.key, 'gamma');
  }, 60_000);
  afterAll(async () => {
    await test.stop();
  });

  it("annotates the key's calls only; another's call is the same 404 as an id that does not exist", async () => {
    const missing = await annotate(alice.key, { target: { call_id: 'no-such-call' }, text: 'x' });
    expect(missing.status).toBe(404);
    const missingBody = await jsonOf(missing);
    expect(missingBody.error).toMatchObject({ code: 'call_not_found', param: 'annotations.0.target.call_id' });
    for (const [who, id] of [
      [alice, calls.bobBeta],
      [alice, calls.admin],
      [bob, calls.alice],
      [bob, calls.admin],
    ] as const) {
      const refused = await annotate(who.key, { target: { call_id: id }, text: 'x' });
      expect(refused.status, id).toBe(404);
      const body = await jsonOf(refused);
      expect(body.error.message.replace(id, 'ID')).toBe(missingBody.error.message.replace('no-such-call', 'ID'));
      expect({ ...body.error, message: '' }).toEqual({ ...missingBody.error, message: '' });
    }
    const own = await annotate(alice.key, {
      annotations: [{ target: { call_id: calls.alice }, text: 'good', metric: { name: 'rating', value: 5 } }],
    });
    expect(own.status).toBe(201);
    expect((await jsonOf(own)).data[0]).toMatchObject({ agent_id: 'alpha', author: alice.id, text: 'good' });
    const bobs = await annotate(bob.key, { target: { call_id: calls.bobBeta }, metric: { name: 'rating', value: 1 } });
    expect(bobs.status).toBe(201);
    expect((await annotate(mallory.key, { target: { call_id: calls.admin }, text: 'x' })).status).toBe(403);
  });

  it('an annotations:write-only key annotates its agents’ calls, whoever made them, and reads nothing', async () => {
    const single = await annotate(feedback.key, { target: { call_id: calls.bobAlpha }, text: 'thumbs down' });
    expect(single.status).toBe(201);
    expect((await jsonOf(single)).data[0]).toMatchObject({ agent_id: 'alpha', author: feedback.id });
    expect((await annotate(feedback.key, { target: { call_id: calls.bobBeta }, text: 'x' })).status).toBe(404);
    const forged = await annotate(feedback.key, { target: { call_id: calls.bobBeta }, text: 'x', agent_id: 'alpha' });
    expect(forged.status).toBe(400);
    expect((await jsonOf(forged)).error.param).toBe('annotations.0.agent_id');
    expect((await api(test, '/v1/annotations', { key: feedback.key })).status).toBe(403);
    expect((await api(test, `/v1/calls/${calls.bobAlpha}`, { key: feedback.key })).status).toBe(403);
    expect((await api(test, '/v1/calls/query', { method: 'POST', body: {}, key: feedback.key })).status).toBe(403);
    const chat = test.openai(feedback.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [] });
    await expect(chat).rejects.toMatchObject({ status: 403 });
  });

  it('lists only the annotations of the calls the key reads; a filter narrows, never widens', async () => {
    const targets = (rows: Array<Record<string, unknown>>) =>
      new Set(rows.map((row) => (row.target as { call_id: string }).call_id));
    expect(targets(await list(alice.key))).toEqual(new Set([calls.alice, calls.bobAlpha]));
    expect(await list(alice.key, '?agent_id=beta')).toEqual([]);
    expect(await list(alice.key, `?call_id=${calls.bobBeta}`)).toEqual([]);
    expect(targets(await list(bob.key))).toEqual(new Set([calls.bobBeta, calls.bobAlpha]));
    expect(await list(bob.key, `?call_id=${calls.alice}`)).toEqual([]);
    expect(targets(await list(bob.key, '?metric=rating'))).toEqual(new Set([calls.bobBeta]));
    expect((await list(test.key)).length).toBe(3);
    expect((await api(test, '/v1/annotations', { key: mallory.key })).status).toBe(403);
    const wrong = await api(test, '/v1/annotations?limit=lots', { key: alice.key });
    expect(wrong.status).toBe(400);
    expect((await jsonOf(wrong)).error.param).toBe('limit');
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
    const stranger = await aliceClient.callTool({
      name: 'add_annotations',
      arguments: { annotations: [{ target: { call_id: calls.bobBeta }, text: 'x' }] },
    });
    expect(stranger.isError).toBe(true);
    expect(text(stranger)).toContain('No call has the id');
    const added = await aliceClient.callTool({
      name: 'add_annotations',
      arguments: {
        annotations: [{ target: { call_id: calls.alice }, key_path: 'answer', metric: { name: 'x', value: 1 } }],
      },
    });
    expect(JSON.parse(text(added)).data[0]).toMatchObject({ agent_id: 'alpha', key_path: 'answer', author: alice.id });
    const viaMcp = JSON.parse(text(await aliceClient.callTool({ name: 'get_annotations', arguments: {} })));
    expect(viaMcp).toEqual(await jsonOf(await api(test, '/v1/annotations', { key: alice.key })));
    await aliceClient.close();

    const feedbackClient = await connect(feedback.key);
    const unread = await feedbackClient.callTool({ name: 'get_annotations', arguments: {} });
    expect(unread.isError).toBe(true);
    expect(text(unread)).toContain('calls:read');
    await feedbackClient.close();
  });
});
