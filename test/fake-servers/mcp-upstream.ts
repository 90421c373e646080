import type { IncomingHttpHeaders } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { startFakeHttpServer } from './http.ts';

/** What an upstream MCP server saw of one request: its headers, and the tool called, if any. */
export interface UpstreamRequest {
  headers: IncomingHttpHeaders;
  method: string | undefined;
  tool: string | undefined;
}

export interface McpUpstreamFake {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  requests: UpstreamRequest[];
  /** Lets every call of `slow` answer (a stateless server never hears of its caller's cancellation). */
  releaseSlow(): void;
  close(): Promise<void>;
}

/**
 * A real MCP server (the SDK's `McpServer`, Streamable HTTP, stateless) on loopback, with tools named `<prefix>` +
 * `web`, `news`, `slow` (answers once the test releases it) and `huge` (`hugeBytes` of text). Every request is kept.
 */
export async function startMcpUpstream(
  /** `sse`: each POST answered as a server-sent event stream (the transport's default), not as one JSON body. */
  options: { hugeBytes?: number; tools?: string[]; sse?: boolean } = {},
): Promise<McpUpstreamFake> {
  const requests: UpstreamRequest[] = [];
  let releaseSlow!: () => void;
  const released = new Promise<void>((resolve) => (releaseSlow = resolve));
  const only = (name: string) => !options.tools || options.tools.includes(name);
  const build = () => {
    const server = new McpServer({ name: 'fake-upstream', version: '1.0.0' });
    if (only('web'))
      server.registerTool(
        'web',
        { description: 'Searches the web.', inputSchema: { query: z.string().describe('What to look for.') } },
        async ({ query }) => ({ content: [{ type: 'text', text: `results for ${query}` }] }),
      );
    if (only('news'))
      server.registerTool(
        'news',
        { description: 'Searches the news.', inputSchema: { query: z.string() } },
        async () => ({
          content: [{ type: 'text', text: 'news' }],
        }),
      );
    if (only('slow'))
      server.registerTool('slow', { description: 'Answers once released.' }, async () => {
        await released;
        return { content: [{ type: 'text', text: 'too late' }] };
      });
    if (only('huge'))
      server.registerTool('huge', { description: 'Answers a lot of text.' }, async () => ({
        content: [{ type: 'text', text: 'x'.repeat(options.hugeBytes ?? 2 * 1024 * 1024) }],
      }));
    if (only('fail'))
      server.registerTool('fail', { description: 'Fails as a tool.' }, async () => ({
        content: [{ type: 'text', text: 'the tool failed' }],
        isError: true,
      }));
    return server;
  };
  const http = await startFakeHttpServer(async (request, response, body) => {
    const message = body as { method?: string; params?: { name?: string } };
    requests.push({ headers: request.headers, method: message.method, tool: message.params?.name });
    const server = build();
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: !options.sse });
    response.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  return { url: `${http.origin}/mcp`, requests, releaseSlow, close: http.close };
}
