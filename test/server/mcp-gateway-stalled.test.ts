import { createServer, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type McpUpstreamFake, startMcpUpstream } from '../fake-servers/mcp-upstream.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * An upstream that takes connections and never answers, with a deadline of a minute: the keys that may not reach it
 * never wait for it, the ones that may wait for it once (its `listingWaitMs`, 1 s here; 10 s by default) and then
 * list without it, and the server stops at once all the same.
 */
let stalled: { url: string; connections: Socket[]; close(): Promise<void> };
let search: McpUpstreamFake;
let test: TestServer;

beforeAll(async () => {
  const connections: Socket[] = [];
  const server = createServer((socket) => void connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  stalled = {
    url: `http://127.0.0.1:${port}/mcp`,
    connections,
    close: () => {
      for (const socket of connections) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  search = await startMcpUpstream({ tools: ['web'] });
  test = await startTestServer({
    mcpServers: [
      { name: 'stalled', url: stalled.url, timeoutMs: 60_000, listingWaitMs: 1_000 },
      { name: 'search', url: search.url },
    ],
  });
});
afterAll(async () => {
  await test?.stop();
  await stalled?.close();
  await search?.close();
});

async function upstreamTools(key: string): Promise<string[]> {
  const client = new Client({ name: 'stalled-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((tool) => tool.name).filter((name) => name.includes('__'));
}

it('a key that may not reach the stalled server never asks it', async () => {
  const grant = { scopes: ['chat' as const], allowed_agents: null, allowed_models: null, expires_at: null };
  const { key } = await test.server.keys.create('web', { grant: { ...grant, mcp_tools: ['search__*'] } });
  expect(await upstreamTools(key)).toEqual(['search__web']);
  expect(stalled.connections).toHaveLength(0);
});

// Its listing wait, not the default 10 s nor the minute's deadline: a listing that waited longer fails by the timeout.
it('a key that may reach it lists the other servers without it, and again at once', async () => {
  const started = performance.now();
  expect(await upstreamTools(test.key)).toEqual(['search__web']);
  // It was waited for, not skipped (a lower bound only; timers may fire a little early by this clock).
  expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  expect(stalled.connections.length).toBeGreaterThan(0);
  expect(await upstreamTools(test.key)).toEqual(['search__web']);
}, 8_000);

it('stops without waiting for the connection under way', async () => {
  await test.server.close();
  expect(test.logs.filter((line) => line.level === 'error')).toEqual([]);
});
