import { ATTRIBUTION_HEADERS } from './call-options.ts';
import type { Reply, ServerRequest } from './exchange.ts';

/**
 * Headers a browser client of the OpenAI, Anthropic, MCP or Switchyard APIs sends: allowed when a preflight names
 * none, or names them in a form that is not a list of header names. Otherwise the names it asks for are allowed.
 */
const ALLOWED_HEADERS = [
  'authorization, content-type, x-api-key, anthropic-version, anthropic-beta, openai-organization, openai-project',
  'x-stainless-os, x-stainless-lang, x-stainless-package-version, x-stainless-runtime, x-stainless-runtime-version',
  'x-stainless-arch, x-stainless-retry-count, x-stainless-timeout, x-stainless-helper-method',
  'anthropic-dangerous-direct-browser-access, mcp-protocol-version, mcp-session-id, last-event-id',
  ...ATTRIBUTION_HEADERS.keys(),
].join(', ');
/** `Access-Control-Request-Headers` as browsers send it: header names (RFC 9110 tokens), comma-separated. */
const HEADER_NAMES = /^[!#$%&'*+.^_`|~0-9a-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9a-z-]+)*$/i;
/** Far more than any client asks for; a longer value is not echoed. */
const MAX_REQUESTED = 2_048;
const EXPOSED_HEADERS = 'x-switchyard-call-id, retry-after, x-switchyard-mock';

/**
 * CORS for the origins `serve --cors-origin` names, and none else: off by default, so a page on another origin
 * cannot read answers with a key it got hold of. Keys are sent as headers, never cookies: no credentials mode.
 */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins.map((origin) => origin.replace(/\/+$/, '').toLowerCase()));
  }

  get enabled(): boolean {
    return this.#origins.size > 0;
  }

  #allowed(request: ServerRequest): string | undefined {
    const origin = request.header('origin');
    return origin !== undefined && this.#origins.has(origin.toLowerCase()) ? origin : undefined;
  }

  /** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`), or `undefined` if it is not one. */
  preflight(request: ServerRequest): Reply | undefined {
    if (!this.enabled || request.method !== 'OPTIONS' || !request.header('access-control-request-method'))
      return undefined;
    const origin = this.#allowed(request);
    if (!origin) return { status: 403, headers: { vary: 'origin' }, body: null };
    return {
      status: 204,
      headers: {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
        'access-control-allow-headers': allowedHeaders(request.header('access-control-request-headers')),
        'access-control-max-age': '600',
        vary: 'origin, access-control-request-headers',
      },
      body: null,
    };
  }

  /** Adds the CORS headers to an answer for an allowed origin. */
  apply(request: ServerRequest, reply: Reply): Reply {
    if (!this.enabled) return reply;
    const origin = this.#allowed(request);
    reply.headers.vary = reply.headers.vary ? `${reply.headers.vary}, origin` : 'origin';
    if (origin) {
      reply.headers['access-control-allow-origin'] = origin;
      reply.headers['access-control-expose-headers'] = EXPOSED_HEADERS;
    }
    return reply;
  }
}

/**
 * The headers a preflight from an allowed origin may send: those it asks for (the origin is trusted, the key still
 * decides what a request may do), so new headers of the SDKs need no release here; else the known list.
 */
function allowedHeaders(requested: string | undefined): string {
  const names = requested?.trim();
  if (!names || names.length > MAX_REQUESTED || !HEADER_NAMES.test(names)) return ALLOWED_HEADERS;
  return names.toLowerCase();
}
