import { createHash } from 'node:crypto';
import { SwitchyardError } from '../errors.ts';
import type { Reply, ServerRequest } from './exchange.ts';

/** An error the server itself raises (auth, routing, body), in the OpenAI error shape like the library's own. */
export class HttpError extends SwitchyardError {
  override name = 'HttpError';
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    message: string,
    options: { type?: string; code?: string | null; param?: string | null; headers?: Record<string, string> } = {},
  ) {
    super(message, {
      status,
      type: options.type ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
      code: options.code ?? null,
      param: options.param ?? null,
    });
    this.headers = options.headers ?? {};
  }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  headers['content-type'] = 'application/json; charset=utf-8';
  return { status, headers, body: JSON.stringify(body) };
}

/**
 * A JSON answer to a GET with a strong ETag (a hash of the body), and `304` when the client already holds it: the
 * `RemoteDeploymentStore` revalidates its cache with `If-None-Match`.
 */
export function jsonWithEtag(request: ServerRequest, body: unknown): Reply {
  const text = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  const known = request.header('if-none-match');
  if (known?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
    return { status: 304, headers: { etag }, body: null };
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', etag }, body: text };
}

/**
 * A thrown error as an HTTP answer: a `SwitchyardError` with its own status and body, anything else a generic 500.
 * `body` writes the error in another API's shape (the Messages API's) for the routes of that API.
 */
export function errorResponse(error: unknown, body?: (error: unknown) => unknown): Reply {
  if (error instanceof SwitchyardError) {
    const headers: Record<string, string> = error instanceof HttpError ? { ...error.headers } : {};
    if (error.callId) headers['x-switchyard-call-id'] = error.callId;
    // A limit's (or a provider's, after every retry) wait, as the header clients read.
    const wait = (error as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof wait === 'number' && headers['retry-after'] === undefined)
      headers['retry-after'] = String(Math.max(1, Math.ceil(wait / 1000)));
    return json(body ? body(error) : error.toJSON(), error.status, headers);
  }
  if (body) return json(body(error), 500);
  // The detail of an unexpected error may quote internals; it goes to the log, not to the client.
  return json(
    {
      error: {
        message: 'The server had an error while processing your request.',
        type: 'api_error',
        param: null,
        code: 'internal_error',
      },
    },
    500,
  );
}
