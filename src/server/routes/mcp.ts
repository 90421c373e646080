import { SwitchyardError } from '../../errors.ts';
import type { OperationServices } from '../operation.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError } from '../responses.ts';
import type { Route } from '../router.ts';

/**
 * `/mcp`: the server's operations (`operations/index.ts`) as MCP tools over Streamable HTTP (stateless: a server and
 * a transport per request, answering in JSON). Each tool is derived from the operation its HTTP route is derived
 * from. The MCP SDK and zod (about 190 ms and 28 MB) are loaded on the first MCP request, not when the server starts.
 */
export function mcpRoutes(services: OperationServices, maxBodyBytes: number, version: string): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/mcp\/?$/,
      auth: 'key',
      checkHost: true,
      errorBody: jsonRpcErrorBody,
      async handle({ request, access }) {
        const body = await readJsonBody(request, maxBodyBytes);
        const messages = checkedMessages(body);
        // A batch of N messages is N requests for the key's rate limit (the handler took one), and each tool call in
        // it one of the key's slots in flight (the handler took one for the request).
        if (messages.length > 1) await access!.countRequests(messages.length - 1);
        const calls = messages.filter((message) => message.method === 'tools/call').length;
        const release = calls > 1 ? await access!.moreSlots(calls - 1) : () => undefined;
        try {
          const { answerMcp } = await import('./mcp-server.ts');
          return await answerMcp(request, body, { ...services, access: access! }, version);
        } finally {
          release();
        }
      },
    },
  ];
}

/** The MCP SDK's limit, checked before anything is counted, asked of an upstream or recorded. */
const MAX_BATCH = 100;

/**
 * The messages of a JSON-RPC body (one, or a batch), refused (400) when a batch is empty or longer than 100, a
 * message is not an object, a request id comes twice (the SDK would keep only the last of two calls of one id,
 * answering before the other ends, and that call would go on after its slot was given back), or the batch cancels
 * one of its own requests.
 */
function checkedMessages(body: unknown): Array<{ method?: unknown; id?: unknown }> {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > MAX_BATCH)
    throw new HttpError(400, `A JSON-RPC batch holds 1 to ${MAX_BATCH} messages.`, { code: 'invalid_request' });
  const ids = new Set<unknown>();
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || Array.isArray(message))
      throw new HttpError(400, 'A JSON-RPC message is an object.', { code: 'invalid_request' });
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (method === undefined || id === undefined || id === null) continue;
    if (ids.has(id))
      throw new HttpError(400, `The request id ${JSON.stringify(id)} comes twice in this batch.`, {
        code: 'invalid_request',
      });
    ids.add(id);
  }
  // The SDK answers no request a cancellation aborted, and a batch's answer waits for all of them: it never came.
  for (const message of messages) {
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    if (method === 'notifications/cancelled' && ids.has(params?.requestId))
      throw new HttpError(400, `This batch cancels its own request ${JSON.stringify(params?.requestId)}.`, {
        code: 'invalid_request',
      });
  }
  return messages as Array<{ method?: unknown; id?: unknown }>;
}

/** `/mcp`'s own refusals (a key, a limit, a body) in JSON-RPC's error shape, as an MCP client reads them. */
function jsonRpcErrorBody(error: unknown) {
  if (!(error instanceof SwitchyardError))
    return { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'The server had an error.' } };
  const { status, message } = error;
  const { type, code } = (error.toJSON() as { error: { type: string; code: string | null } }).error;
  // -32600 Invalid Request for the caller's faults; -32000, a server error, for the rest (a key, a limit, an
  // outage), the gateway's own type and code beside it.
  const rpcCode = status === 400 || status === 413 ? -32600 : -32000;
  return { jsonrpc: '2.0', id: null, error: { code: rpcCode, message, data: { status, type, code } } };
}
