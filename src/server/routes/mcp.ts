import type { DeploymentStore } from '../../deployments/store.ts';
import type { Gateway } from '../../gateway.ts';
import type { BackgroundRuns } from '../background-runs.ts';
import type { KeyStore } from '../key-store.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { Route } from '../router.ts';

/**
 * `/mcp`: the catalog, deployments and key creation as MCP tools over Streamable HTTP (stateless: a server and a
 * transport per request, answering in JSON). Tools call the same gateway and key store as the HTTP API. The MCP SDK
 * and zod (about 190 ms and 28 MB) are loaded on the first MCP request, not when the server starts.
 */
export function mcpRoutes(
  gateway: Gateway,
  keys: KeyStore,
  maxBodyBytes: number,
  version: string,
  deployments: DeploymentStore | undefined,
  runs: BackgroundRuns,
): Route[] {
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
        return answerMcp(request, body, gateway, keys, access!, version, deployments, runs);
      },
    },
  ];
}
