import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as streamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { requireScope } from '../../access/scopes.ts';
import { type Reply, replyFromResponse, type ServerRequest } from '../exchange.ts';
import { type AnyOperation, type OperationContext, scopeSentence } from '../operation.ts';
import { OPERATIONS } from '../operations/index.ts';
import { HttpError } from '../responses.ts';
import { registerGatewayTools } from './mcp-gateway-tools.ts';
import { asJson } from './mcp-reply.ts';

/** One stateless MCP exchange: a server and a transport per request, answering in JSON. */
export async function answerMcp(
  request: ServerRequest,
  body: unknown,
  context: OperationContext,
  version: string,
): Promise<Reply> {
  // No sessionIdGenerator: stateless.
  const server = new McpServer({ name: 'switchyard', version });
  for (const operation of OPERATIONS) registerOperationTool(server, operation, context);
  if (context.mcp) await registerGatewayTools(server, body, context.mcp, context.access.key);
  // The SDK advertises tools.listChanged once a tool is registered; a stateless exchange can never send that
  // notification (and the tool list is fixed), so clients must not wait for one.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  try {
    await server.connect(transport);
    // The body was read (and bounded) by the route; the transport takes it parsed.
    const web = request.toWeb();
    const headers = new Headers(web.headers);
    const bodiless = new Request(web.url, { method: web.method, headers, signal: web.signal });
    const answered = transport.handleRequest(bodiless, { parsedBody: body });
    return replyFromResponse(await untilClientLeaves(answered, request.signal));
  } finally {
    // JSON mode: the response is complete once handleRequest resolves.
    await server.close();
  }
}

/**
 * An operation as an MCP tool: its name, its description ending with the scope it needs, its input schema (the SDK
 * validates the arguments with it), then the scope checked once and the operation's handler, as its HTTP route
 * runs them.
 */
function registerOperationTool(server: McpServer, operation: AnyOperation, context: OperationContext): void {
  const config = {
    description: operation.description + scopeSentence(operation.scope),
    inputSchema: operation.input(),
    ...(operation.hints ? { annotations: operation.hints } : {}),
  };
  server.registerTool(operation.name, config, async (input: unknown) => {
    if (operation.scope !== undefined) requireScope(context.access.key, operation.scope);
    const output = await operation.handle(input, context, operation.mcp?.flags?.(input));
    return asJson(operation.mcp?.result ? operation.mcp.result(output) : output);
  });
}

/**
 * The exchange's answer, or a rejection once the client has gone: an answer the SDK never gives (a request it
 * aborted) must not hold the request, and its key's slot, past its client.
 */
function untilClientLeaves<T>(answered: Promise<T>, signal: AbortSignal): Promise<T> {
  // A SwitchyardError: the handler answers it (to no one) without logging a fault of ours.
  const gone = () => new HttpError(499, 'The client closed the connection.', { code: 'aborted' });
  if (signal.aborted) return Promise.reject(gone());
  return new Promise<T>((resolve, reject) => {
    const leave = () => reject(gone());
    signal.addEventListener('abort', leave, { once: true });
    answered.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
  });
}
