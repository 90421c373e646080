import type { DeploymentStore } from '../deployments/store.ts';
import { SwitchyardError } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import type { ApiKeyStore } from './api-keys.ts';
import { authenticate } from './authenticate.ts';
import type { Reply, ServerRequest } from './exchange.ts';
import { assertAllowedHost, type HostPolicy } from './host-check.ts';
import { DEFAULT_MAX_BODY_BYTES } from './read-json-body.ts';
import { errorResponse } from './responses.ts';
import { findRoute, type Route } from './router.ts';
import { callRoutes } from './routes/calls.ts';
import { completionRoutes } from './routes/completions.ts';
import { deploymentRoutes } from './routes/deployments.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { modelRoutes } from './routes/models.ts';
import { workflowPageRoutes } from './routes/workflow-page.ts';
import { fromWebRequest, toWebResponse } from './web-adapter.ts';

export interface SwitchyardHandlerOptions {
  gateway: Gateway;
  keys: ApiKeyStore;
  /** The store behind `/v1/deployments/{id}` (give the gateway the same one); without it those routes answer 501. */
  deployments?: DeploymentStore | undefined;
  /** Whether the gateway is the simulator: every response then carries `x-switchyard-mock: true`. */
  mock?: boolean;
  /** Largest request body accepted (default 4 MB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Serve the workflow page without a key: only safe when the server listens on loopback. */
  publicPage?: boolean;
  /** Accepted `Host` and `Origin` values for `/` and `/mcp` (DNS-rebinding protection). */
  hostPolicy: HostPolicy;
  /** Reported in the MCP server info. */
  version?: string;
  /** Errors that are not `SwitchyardError`s: bugs or outages, answered with a generic 500. */
  onUnexpectedError?: (error: unknown, request: { method: string; path: string }) => void;
}

/**
 * The whole server as a function from a Web `Request` to a `Response` (in-process tests, other runtimes), whose
 * `handle` answers the runtime-neutral `ServerRequest` that `createNodeListener` builds straight from `node:http`.
 */
export type SwitchyardHandler = ((request: Request) => Promise<Response>) & { handle(request: ServerRequest): Promise<Reply> };

/** Every route is a thin call into the gateway or a store; errors become OpenAI-shaped answers here. */
export function createSwitchyardHandler(options: SwitchyardHandlerOptions): SwitchyardHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { gateway, keys } = options;
  const routes: Route[] = [
    ...completionRoutes(gateway, maxBodyBytes),
    ...modelRoutes(gateway),
    ...deploymentRoutes(gateway, options.deployments, maxBodyBytes),
    ...callRoutes(gateway),
    ...mcpRoutes(gateway, keys, maxBodyBytes, options.version ?? '0.0.0'),
    ...workflowPageRoutes(gateway, options.mock ?? false),
  ];

  const handle = async (request: ServerRequest): Promise<Reply> => {
    let reply: Reply;
    try {
      const { route, params } = findRoute(routes, request.method, request.path);
      if (route.checkHost) assertAllowedHost(request, options.hostPolicy);
      if (route.auth === 'key' || (route.auth === 'page' && !options.publicPage)) authenticate(request.header('authorization'), keys);
      reply = await route.handle({ request, params });
    } catch (error) {
      if (!(error instanceof SwitchyardError)) options.onUnexpectedError?.(error, request);
      reply = errorResponse(error);
    }
    if (options.mock) reply.headers['x-switchyard-mock'] = 'true';
    return reply;
  };
  return Object.assign(async (request: Request) => toWebResponse(await handle(fromWebRequest(request))), { handle });
}
