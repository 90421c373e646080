import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeHttpServer } from '../fake-servers/http.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * An upstream with sessions that restarts (or expires the gateway's session): it answers the old session id 404, the
 * MCP spec's word for "start a new session". The gateway connected again only after its client closed, which an
 * HTTP transport never does on a 404: every call to that server failed, for every key, until the gateway restarted.
 */
let upstream: { url: string; restart(): void; sessions(): number; close(): Promise<void> };
let test: TestServer;

async function startSessionUpstream() {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let opened = 0;
  const { origin, close } = await startFakeHttpServer(async (request, response, body) => {
    const session = request.headers['mcp-session-id'];
    let transport = typeof session === 'string' ? transports.get(session) : undefined;
    if (typeof session === 'string' && !transport) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      const server = new McpServer({ name: 'session-upstream', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text', text: `echo ${text}` }],
      }));
      await server.connect(created);
      opened += 1;
      transport = created;
    }
    await transport.handleRequest(request, response, body);
  });
  return { url: `${origin}/mcp`, restart: () => transports.clear(), sessions: () => opened, close };
}

beforeAll(async () => {
  upstream = await startSessionUpstream();
  test = await startTestServer({ mcpServers: [{ name: 'kept', url: upstream.url }] });
});
afterAll(async () => {
  await test?.stop();
  await upstream?.close();
});

async function callEcho(text: string): Promise<{ isError?: boolean; content: Array<{ text?: string }> }> {
  const client = new Client({ name: 'session-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${test.key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  try {
    return (await client.callTool({ name: 'kept__echo', arguments: { text } })) as never;
  } finally {
    await client.close();
  }
}

it('a call after the upstream forgot its session opens a new one and is answered', async () => {
  expect((await callEcho('one')).content[0]?.text).toBe('echo one');
  const before = upstream.sessions();
  upstream.restart();
  const after = await callEcho('two');
  expect(after.isError).not.toBe(true);
  expect(after.content[0]?.text).toBe('echo two');
  expect(upstream.sessions()).toBe(before + 1);
  expect((await callEcho('three')).content[0]?.text).toBe('echo three');
});
