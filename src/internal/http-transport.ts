import type { Readable, Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { lazyNodeBuiltin } from './node-builtin.ts';
import { createPooledDispatcher, httpClientFailure, requestOn } from './pooled-dispatcher.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError } from './response-limit.ts';

const nodeStream = lazyNodeBuiltin('node:stream', 'The pooled HTTP transport');
const nodeZlib = lazyNodeBuiltin('node:zlib', 'The pooled HTTP transport');

export interface PooledFetchOptions {
  /**
   * Connections per origin (default 128). A stream holds its connection until it ends, and requests beyond the
   * limit wait for a free one: raise it for more concurrent calls to one provider from one process.
   */
  connections?: number;
  /**
   * How long an idle connection is kept when the server sends no keep-alive hint (default 10 s; Node's global fetch
   * keeps 4 s). A server closing first can fail one request with a connection error, which the gateway retries.
   */
  keepAliveTimeoutMs?: number;
  /** Upper bound on a server's keep-alive hint (default 10 minutes). */
  keepAliveMaxTimeoutMs?: number;
  /** Time to open a TCP/TLS connection (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * Time the response headers may take, and the longest pause between two body chunks (default 10 minutes, the
   * SDKs' default request timeout). The SDKs' own per-request timeout and `signal` still apply on top.
   */
  timeoutMs?: number;
  /** Where `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` (or their lower-case forms) are read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Use this dispatcher instead of building one (sharing one pool between gateways, tests). */
  dispatcher?: Dispatcher;
  /**
   * Largest response body read, in bytes, before and after content decoding (default 64 MiB): past it the body
   * fails with a `ResponseTooLargeError` instead of filling memory.
   */
  maxResponseBytes?: number;
}

/** Bodies up to this size with a known length are read before the response is returned (one buffer, no stream). */
const BUFFER_LIMIT = 1 << 20;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/**
 * A `fetch` for the provider SDKs on one pooled keep-alive undici dispatcher (HTTP/1.1, no pipelining), which goes
 * through `HTTPS_PROXY` / `HTTP_PROXY` unless `NO_PROXY` exempts the host, as undici's `EnvHttpProxyAgent` does.
 *
 * Requests the SDKs make (a string or URL, a string or byte body) go straight to undici's `request()` and come back
 * as a standard `Response`: that skips the WHATWG fetch machinery (Request objects, the fetch algorithm, a web
 * stream per body) that costs about half of the client CPU of a small call. Everything else (a `Request` object,
 * FormData, a stream body, redirects) is handed to the global `fetch` with the same dispatcher, so behaviour is
 * fetch's. Responses are the global `Response` class either way.
 *
 * Like fetch: `signal` aborts the request and the body, rejecting with the signal's reason; network failures
 * reject with `TypeError('fetch failed', { cause })`; gzip, deflate and br bodies are decoded.
 */
export const createPooledFetch = (options: PooledFetchOptions = {}) => createPooledTransport(options).fetch;

/** One pooled dispatcher (built, and undici loaded, on first use) and the `fetch` over it. */
export interface PooledTransport {
  fetch: typeof fetch;
  dispatcher(): Dispatcher | Promise<Dispatcher>;
}

export function createPooledTransport(options: PooledFetchOptions = {}): PooledTransport {
  // undici is loaded on the first request, not at import: loading all of it takes 100-200 ms.
  let dispatcher = options.dispatcher;
  let loading: Promise<Dispatcher> | undefined;
  const getDispatcher = async (): Promise<Dispatcher> => {
    loading ??= createPooledDispatcher(options).then((created) => (dispatcher = created));
    // A failure to start it is this process's (an InternalError), made anew for each call that meets it.
    return loading.catch(httpClientFailure);
  };

  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  async function pooledFetch(input: string | URL | Request, init?: RequestInit, redirects = 0): Promise<Response> {
    const pool = dispatcher ?? (await getDispatcher());
    const body = init?.body;
    const method = init?.method?.toUpperCase() ?? 'GET';
    if (!(typeof input === 'string' || input instanceof URL) || !isSimpleBody(body) || method === 'CONNECT') {
      return viaFetch(input, init, pool);
    }
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    const url = typeof input === 'string' ? new URL(input) : input;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return viaFetch(input, init, pool);

    let data: Dispatcher.ResponseData;
    try {
      data = await requestOn(pool, {
        origin: url.origin,
        path: url.pathname + url.search,
        method: method as Dispatcher.HttpMethod,
        headers: requestHeaders(init?.headers, body),
        body: (body ?? null) as string | Uint8Array | null,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw fetchError(error, signal);
    }

    const { statusCode, headers } = data;
    if (REDIRECT_STATUS.has(statusCode) && headers.location !== undefined && init?.redirect !== 'manual') {
      data.body.dump().catch(() => undefined);
      const next = redirectRequest(url, statusCode, String(headers.location), method, init, redirects);
      const response = await pooledFetch(next.url, next.init, redirects + 1);
      Object.defineProperty(response, 'redirected', { value: true });
      return response;
    }
    const responseInit = { status: statusCode, statusText: data.statusText, headers: responseHeaders(headers) };
    if (method === 'HEAD' || NULL_BODY_STATUS.has(statusCode)) {
      data.body.dump().catch(() => undefined);
      return withUrl(new Response(null, responseInit), url);
    }
    const encoding = headers['content-encoding'];
    const length = headers['content-length'];
    if (length !== undefined && Number(length) > maxBytes) {
      data.body.destroy();
      throw new TypeError('fetch failed', { cause: new ResponseTooLargeError(maxBytes) });
    }
    const contentType = headers['content-type'];
    if (
      encoding === undefined &&
      length !== undefined &&
      Number(length) <= BUFFER_LIMIT &&
      !String(contentType).startsWith('text/event-stream')
    ) {
      let bytes: Uint8Array;
      try {
        bytes = await data.body.bytes();
      } catch (error) {
        throw fetchError(error, signal);
      }
      return withUrl(new Response(bytes, responseInit), url);
    }
    return withUrl(new Response(decoded(data.body, encoding, maxBytes), responseInit), url);
  }

  function viaFetch(input: string | URL | Request, init: RequestInit | undefined, pool: Dispatcher): Promise<Response> {
    // The global fetch, not undici's export: the SDKs build global FormData/Request objects, which only it accepts.
    return fetch(input, { ...init, dispatcher: pool } as unknown as RequestInit);
  }

  return { fetch: pooledFetch as typeof fetch, dispatcher: () => dispatcher ?? getDispatcher() };
}

/**
 * The request a redirect leads to, by fetch's rules: 303 (and 301/302 after a POST) becomes a bodiless GET, 307/308
 * resend as they were; credentials are not carried to another origin; at most 20 hops; `redirect: 'error'` fails.
 */
function redirectRequest(
  from: URL,
  status: number,
  location: string,
  method: string,
  init: RequestInit | undefined,
  hops: number,
): { url: URL; init: RequestInit } {
  if (init?.redirect === 'error')
    throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect to ${location}`) });
  if (hops >= 20) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
  const url = new URL(location, from);
  const toGet =
    (status === 303 && method !== 'GET' && method !== 'HEAD') ||
    ((status === 301 || status === 302) && method === 'POST');
  const dropped = new Set<string>();
  if (toGet)
    for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'])
      dropped.add(name);
  if (url.origin !== from.origin)
    for (const name of ['authorization', 'proxy-authorization', 'cookie']) dropped.add(name);
  const headers = requestHeaders(init?.headers, undefined).reduce<Array<[string, string]>>(
    (list, value, index, flat) => {
      if (index % 2 === 0 && !dropped.has(value)) list.push([value, flat[index + 1]!]);
      return list;
    },
    [],
  );
  return { url, init: { ...init, headers, ...(toGet ? { method: 'GET', body: null } : {}) } };
}

function isSimpleBody(body: unknown): boolean {
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
}

/** The request headers as undici's flat `[name, value, …]` list, with the defaults fetch adds. */
function requestHeaders(headers: RequestInit['headers'], body: unknown): string[] {
  const flat: string[] = [];
  // A Headers object of any fetch implementation (global, undici's): names come lower-cased, duplicates joined.
  if (headers && !Array.isArray(headers) && typeof (headers as { forEach?: unknown }).forEach === 'function') {
    (headers as unknown as Headers).forEach((value, name) => {
      flat.push(name, value);
    });
  } else if (Array.isArray(headers)) {
    for (const [name, value] of headers as Array<[string, string]>) flat.push(name.toLowerCase(), value);
  } else if (headers) {
    for (const name of Object.keys(headers)) {
      const value = (headers as Record<string, string | undefined>)[name];
      if (value !== undefined) flat.push(name.toLowerCase(), value);
    }
  }
  let accept = false;
  let acceptEncoding = false;
  let contentType = false;
  for (let index = 0; index < flat.length; index += 2) {
    const name = flat[index];
    if (name === 'accept') accept = true;
    else if (name === 'accept-encoding') acceptEncoding = true;
    else if (name === 'content-type') contentType = true;
  }
  if (!accept) flat.push('accept', '*/*');
  if (!acceptEncoding) flat.push('accept-encoding', 'gzip, deflate, br');
  if (!contentType && typeof body === 'string') flat.push('content-type', 'text/plain;charset=UTF-8');
  return flat;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (typeof value === 'string') list.push([name, value]);
    else if (Array.isArray(value)) for (const item of value) list.push([name, item]);
  }
  return list;
}

/**
 * The body with its content-encoding undone (innermost last), flushed chunk by chunk so streams stay live, and
 * its decoded size held to `maxBytes` (a small compressed body can expand a thousandfold).
 */
export function decoded(body: Readable, encoding: string | string[] | undefined, maxBytes: number): Readable {
  if (encoding === undefined) return body;
  return nodeStream().pipeline(decompressed(body, encoding), byteLimit(maxBytes), () => undefined);
}

function decompressed(body: Readable, encoding: string | string[]): Readable {
  const codings = String(encoding)
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter(Boolean)
    .reverse();
  let stream = body;
  for (const coding of codings) {
    const zlib = nodeZlib();
    const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    const decoder =
      coding === 'gzip' || coding === 'x-gzip'
        ? zlib.createGunzip(flush)
        : coding === 'deflate'
          ? zlib.createInflate(flush)
          : coding === 'br'
            ? zlib.createBrotliDecompress({
                flush: zlib.constants.BROTLI_OPERATION_FLUSH,
                finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
              })
            : undefined;
    if (!decoder) return stream;
    stream = nodeStream().pipeline(stream, decoder, () => undefined);
  }
  return stream;
}

/** `Response.url` is read-only and empty for a constructed response; the SDKs log it, so it is set as fetch would. */
function withUrl(response: Response, url: URL): Response {
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

/** Aborts reject with the signal's reason, everything else as fetch's `TypeError: fetch failed`. */
function fetchError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof Error && error.name === 'AbortError') return error;
  return new TypeError('fetch failed', { cause: error });
}

/** Counts a decoded body, failing it once it passes `maxBytes`. */
function byteLimit(maxBytes: number): Transform {
  let total = 0;
  const { Transform } = nodeStream();
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > maxBytes) callback(new ResponseTooLargeError(maxBytes));
      else callback(null, chunk);
    },
  });
}
