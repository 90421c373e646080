import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { OPERATIONS } from '../../src/server/operations/index.ts';
import { type McpUpstreamFake, startMcpUpstream } from '../fake-servers/mcp-upstream.ts';
import { api, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Issue 40 item 2: upstream MCP servers (two over Streamable HTTP, one over stdio, all built with the MCP SDK) behind
 * `serve`'s `/mcp`, driven by the SDK's client with keys that may reach some of their tools.
 */
const UPSTREAM_SECRET = 'upstream-credential-of-the-gateway';
const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.ts', import.meta.url));
let test: TestServer;
let search: McpUpstreamFake;
let docs: McpUpstreamFake;
const keys = { web: '', files: '', none: '', empty: '', team: '', reader: '' };
const clients: Client[] = [];

const grant = (mcp_tools: string[] | null, scopes: KeyGrant['scopes'] = ['chat', 'models']): KeyGrant => ({
  scopes,
  allowed_agents: null,
  allowed_models: null,
  expires_at: null,
  mcp_tools,
});
const BUILT_IN = OPERATIONS.map((operation) => operation.name);

beforeAll(async () => {
  search = await startMcpUpstream({ hugeBytes: 200_000 });
  docs = await startMcpUpstream({ tools: ['web'] });
  test = await startTestServer({
    metrics: true,
    mcpServers: [
      {
        name: 'search',
        url: search.url,
        headers: { authorization: `Bearer ${UPSTREAM_SECRET}` },
        timeoutMs: 3_000,
        maxResultBytes: 100_000,
      },
      { name: 'files', command: process.execPath, args: [STDIO_SERVER], env: { SECRET_TOKEN: 'stdio-token' } },
      { name: 'docs', url: docs.url },
    ],
  });
  const create = async (name: string, value: KeyGrant) => (await test.server.keys.create(name, { grant: value })).key;
  keys.web = await create('web', grant(['search__web']));
  keys.files = await create('files', grant(['files__*']));
  keys.none = await create('none', grant(null));
  keys.empty = await create('empty', grant([]));
  keys.team = await create('team', grant(['search__*', 'docs__web'], ['chat', 'keys:create']));
  keys.reader = await create('reader', grant(['*'], ['calls:read']));
}, 60_000);
afterAll(async () => {
  search?.releaseSlow();
  await Promise.all(clients.map((client) => client.close()));
  await test?.stop();
  await search?.close();
  await docs?.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-gateway-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function toolsOf(key: string): Promise<string[]> {
  const { tools } = await (await connect(key)).listTools();
  return tools.map((tool) => tool.name).filter((name) => !BUILT_IN.includes(name));
}

async function call(key: string, name: string, args: Record<string, unknown> = {}) {
  const result = await (await connect(key)).callTool({ name, arguments: args });
  return { isError: result.isError === true, text: (result.content as Array<{ text: string }>)[0]!.text };
}

async function mcpCalls(): Promise<Array<Record<string, unknown>>> {
  const response = await api(test, '/v1/mcp/calls?limit=1000');
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Array<Record<string, unknown>> }).data;
}

describe('the MCP gateway', () => {
  it("offers every upstream's tools under its prefix to an admin key, beside the built-in tools", async () => {
    const { tools } = await (await connect(test.key)).listTools();
    const names = tools.map((tool) => tool.name);
    // No built-in tool has the separator in its name: none can be taken for an upstream's.
    expect(BUILT_IN.filter((name) => name.includes('__'))).toEqual([]);
    for (const name of BUILT_IN) expect(names).toContain(name);
    const upstream = names.filter((name) => !BUILT_IN.includes(name)).sort();
    expect(upstream).toEqual([
      'docs__web',
      'files__big',
      'files__env',
      'files__grow',
      'files__pid',
      'files__read',
      'search__fail',
      'search__huge',
      'search__news',
      'search__slow',
      'search__web',
    ]);
    const web = tools.find((tool) => tool.name === 'search__web')!;
    expect(web.description).toBe('Searches the web.');
    expect(web.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } } });
    expect(web.inputSchema.required).toEqual(['query']);
  });

  it('lists and calls for a key only the tool its allowlist names', async () => {
    expect(await toolsOf(keys.web)).toEqual(['search__web']);
    const before = search.requests.filter((request) => request.tool === 'news').length;
    expect(await call(keys.web, 'search__web', { query: 'switchyard' })).toEqual({
      isError: false,
      text: 'results for switchyard',
    });
    const refused = await call(keys.web, 'search__news', { query: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('search__news not found');
    expect(search.requests.filter((request) => request.tool === 'news').length).toBe(before);
  });

  it("keeps two keys' tools apart", async () => {
    expect((await toolsOf(keys.files)).sort()).toEqual([
      'files__big',
      'files__env',
      'files__grow',
      'files__pid',
      'files__read',
    ]);
    expect((await call(keys.files, 'search__web', { query: 'x' })).isError).toBe(true);
    expect((await call(keys.web, 'files__read', { path: '/etc/hosts' })).isError).toBe(true);
    expect(await call(keys.files, 'files__read', { path: 'a.txt' })).toEqual({
      isError: false,
      text: 'contents of a.txt',
    });
  });

  it('gives a key with no list, or an empty one, no upstream tool', async () => {
    expect(await toolsOf(keys.none)).toEqual([]);
    expect(await toolsOf(keys.empty)).toEqual([]);
    expect((await call(keys.empty, 'search__web', { query: 'x' })).isError).toBe(true);
  });

  it("forwards the gateway's credential for the server, never the caller's key", async () => {
    await call(keys.web, 'search__web', { query: 'credential' });
    const calls = search.requests.filter((request) => request.method === 'tools/call');
    expect(calls.length).toBeGreaterThan(0);
    for (const request of search.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${UPSTREAM_SECRET}`);
      expect(JSON.stringify(request.headers)).not.toContain('sy-');
    }
  });

  it('spawns a stdio server with the environment declared for it (and not the rest of ours)', async () => {
    const env = JSON.parse((await call(test.key, 'files__env')).text) as { token: string; names: string[] };
    expect(env.token).toBe('stdio-token');
    expect(env.names.filter((name) => /KEY|TOKEN|SECRET/.test(name))).toEqual(['SECRET_TOKEN']);
  });

  it('mints a child key only within its parent tool list, and none when it names none', async () => {
    const mint = (mcp_tools?: string[]) =>
      api(test, '/v1/keys', { key: keys.team, body: { name: 'child', scopes: ['chat'], mcp_tools } });
    const inside = await mint(['search__web']);
    expect(inside.status).toBe(201);
    const child = (await inside.json()) as { key: string; mcp_tools: string[] };
    expect(child.mcp_tools).toEqual(['search__web']);
    expect(await toolsOf(child.key)).toEqual(['search__web']);
    const outside = await mint(['files__read', 'search__*']);
    expect(outside.status).toBe(403);
    const error = ((await outside.json()) as { error: { message: string } }).error.message;
    expect(error).toContain('files__read');
    expect(error).toContain('its own: search__*, docs__web');
    expect((await mint(['*'])).status).toBe(403);
    const unnamed = (await (await mint()).json()) as { key: string; mcp_tools: string[] };
    expect(unnamed.mcp_tools).toEqual([]);
    expect(await toolsOf(unnamed.key)).toEqual([]);
    expect((await mint(['search__web__x*'])).status).toBe(400);
  });

  it("fails a slow tool at the server's deadline, and the gateway goes on", async () => {
    const slow = await call(test.key, 'search__slow');
    expect(slow.isError).toBe(true);
    expect(slow.text).toContain('did not answer within 3000 ms');
    search.releaseSlow();
    expect((await call(test.key, 'search__web', { query: 'after' })).text).toBe('results for after');
  });

  it('fails a result past the bound', async () => {
    const huge = await call(test.key, 'search__huge');
    expect(huge.isError).toBe(true);
    expect(huge.text).toContain('answered more than 100000 bytes');
  });

  it("passes a tool's own failure on as it is", async () => {
    expect(await call(test.key, 'search__fail')).toEqual({ isError: true, text: 'the tool failed' });
  });

  it("fails only a stopped server's tools", async () => {
    expect((await call(test.key, 'docs__web', { query: 'up' })).isError).toBe(false);
    await docs.close();
    const down = await call(test.key, 'docs__web', { query: 'down' });
    expect(down.isError).toBe(true);
    expect(down.text).toContain('The MCP server "docs" cannot be reached');
    expect((await call(test.key, 'search__web', { query: 'still' })).text).toBe('results for still');
    expect((await call(test.key, 'files__read', { path: 'b' })).text).toBe('contents of b');
    const models = await call(test.key, 'list_models', {});
    expect(models.isError).toBe(false);
    expect(await toolsOf(keys.web)).toEqual(['search__web']);
  });

  it("answers a caller's odd tool calls without an error of its own, and forwards none of them", async () => {
    const forwarded = search.requests.length;
    const message = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
    const post = (body: unknown) =>
      api(test, '/mcp', {
        key: keys.web,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
        body,
      });
    // Not JSON-RPC requests of MCP at all: the caller's fault, said as such.
    expect((await post([message(1, null)])).status).toBe(400);
    expect((await post({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: 'x' })).status).toBe(400);
    const response = await post([
      message(2, { name: 123 }),
      message(3, { name: 'search__web', arguments: 'not an object' }),
      message(4, { name: `docs__${'x'.repeat(10_000)}`, arguments: {} }),
      message(5, { name: 'search__news' }),
    ]);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Array<{ id: number; error?: unknown; result?: { isError?: boolean } }>;
    expect(answers.map((answer) => answer.id).sort()).toEqual([2, 3, 4, 5]);
    for (const answer of answers) expect(answer.error !== undefined || answer.result?.isError === true).toBe(true);
    expect(search.requests.length).toBe(forwarded);
  });

  it('records every call: key, tool, server, duration, outcome, sizes; for admin keys only', async () => {
    const records = await mcpCalls();
    const keyIds = new Map((await test.server.keys.list()).map((key) => [key.name, key.id]));
    const web = records.find((record) => record.tool === 'search__web' && record.key_id === keyIds.get('web'));
    expect(web).toMatchObject({ server: 'search', outcome: 'ok', error: null });
    expect(web!.request_bytes).toBeGreaterThan(0);
    expect(web!.response_bytes).toBeGreaterThan(0);
    expect(typeof web!.duration_ms).toBe('number');
    const outcomes = (tool: string) => records.filter((record) => record.tool === tool).map((r) => r.outcome);
    expect(outcomes('search__news')).toContain('forbidden');
    expect(outcomes('search__slow')).toContain('timeout');
    expect(outcomes('search__huge')).toContain('too_large');
    expect(outcomes('search__fail')).toContain('tool_error');
    expect(outcomes('docs__web')).toEqual(expect.arrayContaining(['ok', 'unavailable']));
    expect(JSON.stringify(records)).not.toContain(UPSTREAM_SECRET);
    expect(JSON.stringify(test.logs)).not.toContain(UPSTREAM_SECRET);
    expect(test.logs.some((line) => line.msg === 'mcp tool call' && line.tool === 'search__web')).toBe(true);
    expect((await api(test, '/v1/mcp/calls', { key: keys.reader })).status).toBe(403);
    const metrics = await (await api(test, '/metrics')).text();
    expect(metrics).toMatch(/switchyard_mcp_tool_calls_total\{server="search",outcome="ok"\} \d+/);
    expect(metrics).toMatch(/switchyard_mcp_tool_calls_total\{server="docs",outcome="unavailable"\} 1/);
  });

  it("lists an upstream's new tool at once when it says its list changed", async () => {
    expect(await toolsOf(keys.files)).not.toContain('files__grown');
    expect((await call(test.key, 'files__grow')).text).toBe('grown');
    expect(await toolsOf(keys.files)).toContain('files__grown');
    expect(await call(keys.files, 'files__grown')).toEqual({ isError: false, text: 'new' });
  });

  it('ends the stdio server it spawned when it stops', async () => {
    const pid = Number((await call(test.key, 'files__pid')).text);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await test.server.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
