import type { OperationServices } from '../operation.ts';
import { readJsonBody } from '../read-json-body.ts';
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
      async handle({ request, access }) {
        const body = await readJsonBody(request, maxBodyBytes);
        // A batch of N calls is N requests for the key's rate limit (the handler took one).
        if (Array.isArray(body) && body.length > 1) await access?.countRequests(body.length - 1);
        const { answerMcp } = await import('./mcp-server.ts');
        return answerMcp(request, body, { ...services, access: access! }, version);
      },
    },
  ];
}
