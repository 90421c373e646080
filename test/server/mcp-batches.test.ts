import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { type McpUpstreamFake, startMcpUpstream } from '../fake-servers/mcp-upstream.ts';
import { api, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * JSON-RPC batches on `/mcp`, from a key that must not get more from one request than from as many requests: at
 * most 100 messages, each a message, no request id twice, one of the key's slots in flight per tool call, and
 * refusals recorded only for a batch that is a batch.
 */
let test: TestServer;
let upstream: McpUpstreamFake;
beforeAll(async () => {
  upstream = await startMcpUpstream({ tools: ['web', 'slow'] });
  test = await startTestServer({ mcpServers: [{ name: 'search', url: upstream.url, timeoutMs: 5_000 }] });
}, 30_000);
afterAll(async () => {
  upstream?.releaseSlow();
  await test?.stop();
  await upstream?.close();
});

const grant = (mcp_tools: string[]): KeyGrant => ({
  scopes: ['chat'],
  allowed_agents: null,
  allowed_models: null,
  expires_at: null,
  mcp_tools,
});
const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: { query: 'q' } },
});
const post = (key: string, body: unknown) =>
  api(test, '/mcp', { key, body, headers: { accept: 'application/json, text/event-stream' } });
const recordedCalls = async () =>
  ((await (await api(test, '/v1/mcp/calls?limit=1000')).json()) as { data: unknown[] }).data.length;

describe('a JSON-RPC batch on /mcp', () => {
  it('of more than 100 messages is refused in JSON-RPC’s shape before anything is recorded', async () => {
    const { key } = await test.server.keys.create('nothing', { grant: grant([]) });
    const before = await recordedCalls();
    const response = await post(
      key,
      Array.from({ length: 5_000 }, (_, index) => call(index, 'search__web')),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(await recordedCalls()).toBe(before);
  });

  it('naming one request id twice is refused: no call may outlive its answer', async () => {
    const { key } = await test.server.keys.create('web', { grant: grant(['search__*']) });
    const response = await post(key, [call(1, 'search__web'), call(1, 'search__web')]);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/id 1/) } });
  });

  it('takes one of the key’s slots in flight per tool call: two calls on a key of one slot are refused', async () => {
    const { key, info } = await test.server.keys.create('one slot', { grant: grant(['search__*']) });
    await test.server.keys.updateLimits(info.id, { max_in_flight: 1 });
    const response = await post(key, [call(1, 'search__web'), call(2, 'search__web')]);
    expect(response.status).toBe(429);
    expect((await post(key, [call(3, 'search__web')])).status).toBe(200);
  });
});
