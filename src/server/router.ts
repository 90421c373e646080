import type { ScopeNeed } from '../access/scopes.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import type { Reply, ServerRequest } from './exchange.ts';
import type { KeyAccess } from './key-access.ts';
import { HttpError } from './responses.ts';

interface RouteContext {
  request: ServerRequest;
  /** The route pattern's capture groups, URL-decoded. */
  params: string[];
  /** The caller's key, on routes that take one (`auth: "key"`, and `page` unless the page is public). */
  key?: ApiKeyInfo | undefined;
  /** The key's limits as rules (`KeyAccess`), beside `key` wherever there is one. */
  access?: KeyAccess | undefined;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Matched against the whole path; capture groups become `params`. */
  path: RegExp;
  /** `key`: Bearer key required; `page`: required unless public to local requests (`publicPage`); `none`: public. */
  auth: 'key' | 'page' | 'none';
  /**
   * The scope the key needs, or the scopes of which it needs one (403 without): checked once, before `handle`.
   * Routes whose needs depend on the request ask the rules (`src/access/`) in `handle`.
   */
  scope?: ScopeNeed;
  /** Check `Host` and `Origin` against DNS rebinding (routes that browsers or agents reach). */
  checkHost?: boolean;
  /** Errors in another API's shape than OpenAI's (the Messages API's routes answer as Anthropic does). */
  errorBody?: (error: unknown) => unknown;
  /**
   * The path under which the route's API lives (`/v1/messages`): a request there that no route takes (a 404, a 405)
   * is refused in this route's `errorBody` shape, as that API's clients read errors.
   */
  apiPath?: string;
  handle(context: RouteContext): Promise<Reply>;
}

/** The route for a request, or the 404 / 405 (with `Allow`) that says why there is none. HEAD runs the GET route. */
export function findRoute(
  routes: ReadonlyArray<Route>,
  method: string,
  pathname: string,
): { route: Route; params: string[] } {
  const allowed: string[] = [];
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const route of routes) {
    const match = route.path.exec(pathname);
    if (!match) continue;
    if (route.method === wanted) return { route, params: match.slice(1).map(decodeParam) };
    allowed.push(route.method);
    if (route.method === 'GET') allowed.push('HEAD');
  }
  if (allowed.length === 0) throw new HttpError(404, `Unknown route: ${method} ${pathname}.`, { code: 'unknown_url' });
  throw new HttpError(405, `${method} is not allowed on ${pathname}; use ${allowed.join(' or ')}.`, {
    code: 'method_not_allowed',
    headers: { allow: allowed.join(', ') },
  });
}

/** The error shape for a request no route took: that of the API whose path it is under (OpenAI's when none). */
export function errorBodyForPath(routes: ReadonlyArray<Route>, pathname: string): Route['errorBody'] {
  const owner = routes.find(
    (route) =>
      route.path.test(pathname) ||
      (route.apiPath !== undefined && (pathname === route.apiPath || pathname.startsWith(`${route.apiPath}/`))),
  );
  return owner?.errorBody;
}

function decodeParam(value: string | undefined): string {
  try {
    return decodeURIComponent(value ?? '');
  } catch {
    throw new HttpError(400, `The path segment "${value}" is not valid percent-encoding.`, { code: 'invalid_path' });
  }
}
