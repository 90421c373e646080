import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUpstreamFake, startMcpUpstream } from '../fake-servers/mcp-upstream.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * An upstream MCP server that answers what no SDK would: a listing that repeats a tool and its cursor for ever, a
 * notification stream with no end of line, an error message of a megabyte. Its failures stay its own: the other
 * servers' tools and the built-in ones are listed and called, the process's memory holds, and what it said is cut
 * before it reaches the caller, the log or the records.
 */
let rogue: { url: string; getBytes: number; getClosed: boolean; close(): Promise<void> };
let search: McpUpstreamFake;
let test: TestServer;
const HUGE_ERROR = `boom ${'x'.repeat(1_000_000)}`;
let goneCalls = 0;

beforeAll(async () => {
  let getBytes = 0;
  let getClosed = false;
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET') {
      // A notification stream whose one event never ends: data lines without the blank line that ends an event, for
      // as long as they are read (64 MB at most).
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = `data: ${'y'.repeat(1024)}\n`.repeat(64);
      const pump = () => {
        while (!response.destroyed && getBytes < 64 * 1024 * 1024) {
          getBytes += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
      };
      response.on('close', () => {
        getClosed = true;
      });
      pump();
      return;
    }
    let text = '';
    for await (const chunk of request) text += chunk;
    const message = JSON.parse(text) as { id?: number; method: string };
    const answer = (result: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    };
    if (message.method === 'initialize')
      return answer({
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'rogue', version: '1.0.0' },
      });
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    if (message.method === 'tools/list')
      return answer({
        tools: [
          { name: 'web', inputSchema: { type: 'object' } },
          { name: 'strict', inputSchema: { type: 'object' } },
          { name: 'gone', inputSchema: { type: 'object' } },
          {
            name: 'shaped',
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
          },
        ],
        nextCursor: 'again',
      });
    const tool = (message as { params?: { name?: string } }).params?.name;
    // A JSON-RPC error whose code happens to be 404, after the tool ran: not a lost session.
    if (tool === 'gone') {
      goneCalls += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: 404, message: 'gone' } }));
    }
    // Its own output schema broken: a string where it said a number.
    if (tool === 'shaped') return answer({ content: [{ type: 'text', text: 'x' }], structuredContent: { n: 'x' } });
    const strict = tool === 'strict';
    const error = strict
      ? { code: -32602, message: 'Invalid params: "query" is required' }
      : { code: -32603, message: HUGE_ERROR };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  rogue = {
    url: `http://127.0.0.1:${port}/mcp`,
    get getBytes() {
      return getBytes;
    },
    get getClosed() {
      return getClosed;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  search = await startMcpUpstream({ tools: ['web'] });
  test = await startTestServer({
    mcpServers: [
      { name: 'rogue', url: rogue.url, timeoutMs: 3_000 },
      { name: 'search', url: search.url },
    ],
  });
}, 30_000);
afterAll(async () => {
  await test?.stop();
  await search?.close();
  await rogue?.close();
});

async function client(): Promise<Client> {
  const mcp = new Client({ name: 'misbehaving-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${test.key}` };
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  return mcp;
}

describe('an upstream that misbehaves', () => {
  it('repeating a tool and its cursor: listed once, beside the other servers’ and built-in tools', async () => {
    const mcp = await client();
    const { tools } = await mcp.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name) => name === 'rogue__web')).toHaveLength(1);
    expect(names).toContain('search__web');
    expect(names).toContain('list_models');
    await mcp.close();
  });

  it('answering an error of a megabyte: the caller and the log get its first few hundred characters', async () => {
    const mcp = await client();
    const result = await mcp.callTool({ name: 'rogue__web', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('boom');
    expect(text.length).toBeLessThan(1_000);
    expect(JSON.stringify(test.logs).length).toBeLessThan(HUGE_ERROR.length);
    await mcp.close();
  });

  it('answering a JSON-RPC error coded 404: not sent again (an HTTP 404 alone is a lost session)', async () => {
    const mcp = await client();
    const result = await mcp.callTool({ name: 'rogue__gone', arguments: {} });
    expect(result.isError).toBe(true);
    expect(goneCalls).toBe(1);
    await mcp.close();
  });

  it('answering outside its own output schema: the server is blamed, not the call', async () => {
    const mcp = await client();
    const result = await mcp.callTool({ name: 'rogue__shaped', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).not.toMatch(/refused the call's arguments/);
    expect(text).toMatch(/output schema/);
    await mcp.close();
  });

  it('refusing the arguments it was sent: the caller is blamed, not the server', async () => {
    const mcp = await client();
    const result = await mcp.callTool({ name: 'rogue__strict', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/refused the call's arguments.*"query"/);
    await mcp.close();
    const calls = (await (
      await fetch(`${test.url}/v1/mcp/calls?limit=10`, { headers: { authorization: `Bearer ${test.key}` } })
    ).json()) as {
      data: Array<{ tool: string; outcome: string }>;
    };
    expect(calls.data.find((call) => call.tool === 'rogue__strict')?.outcome).toBe('invalid_request');
  });

  it('sending a notification event without end: the stream is cut, not read into memory', async () => {
    await expect.poll(() => rogue.getBytes > 0, { timeout: 5000 }).toBe(true);
    await expect.poll(() => rogue.getClosed, { timeout: 10_000 }).toBe(true);
    expect(rogue.getBytes).toBeLessThan(16 * 1024 * 1024);
  });
});
