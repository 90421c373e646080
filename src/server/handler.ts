import type { DeploymentStore } from '../deployments/store.ts';
import { SwitchyardError } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import type { ApiKeyStore } from './api-keys.ts';
import { authenticate } from './authenticate.ts';
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
  onUnexpectedError?: (error: unknown, request: Request) => void;
}

export type SwitchyardHandler = (request: Request) => Promise<Response>;

/**
 * The whole server as a function from a Web `Request` to a `Response`, so it runs in process in tests and behind any
 * adapter (`node-adapter.ts` for `node:http`). Every route is a thin call into the gateway or a store.
 */
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

  return async (request) => {
    let response: Response;
    try {
      const url = new URL(request.url);
      const { route, params } = findRoute(routes, request.method, url.pathname);
      if (route.checkHost) assertAllowedHost(request, options.hostPolicy);
      if (route.auth === 'key' || (route.auth === 'page' && !options.publicPage)) authenticate(request, keys);
      response = await route.handle({ request, url, params });
    } catch (error) {
      if (!(error instanceof SwitchyardError)) options.onUnexpectedError?.(error, request);
      response = errorResponse(error);
    }
    if (options.mock) response.headers.set('x-switchyard-mock', 'true');
    return response;
  };
}
