import type { Dispatcher } from 'undici';
import { decoded } from '../../internal/http-transport.ts';
import { type ServerEvent, serverEvents } from './server-events.ts';

/** Where a request goes: the origin and the path (with its query), split once per adapter, not per call. */
export interface Endpoint {
  origin: string;
  path: string;
}

/** One POST of a provider's wire transport. */
export interface WireRequest {
  endpoint: Endpoint;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal | undefined;
  /** How long the response headers may take, and the longest pause between two chunks of its body. */
  timeoutMs: number;
}

/** A response whose body has not been read yet. */
export interface WireResponse {
  status: number;
  /** A response header (lower-case name); repeated headers joined with `, `. */
  header(name: string): string | undefined;
  /** Every header, for errors that keep them (`retry-after`, request ids). */
  headers(): Headers;
  text(): Promise<string>;
  /**
   * The body's server-sent events (content-encoding undone), parsed in the loop that reads it; the body is closed
   * however the reading ends.
   */
  events(): AsyncGenerator<ServerEvent>;
  /** Drops the body unread. */
  discard(): void;
}

export type HttpSender = (request: WireRequest) => Promise<WireResponse>;

/** The response headers did not arrive, or the body paused, for longer than the request's `timeoutMs`. */
export class WireTimeoutError extends Error {
  override name = 'TimeoutError';
  constructor(timeoutMs: number, cause?: unknown) {
    super(`no answer within ${timeoutMs} ms`, { cause });
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Sends on the pooled undici dispatcher itself (`dispatcher.request`): no `Request`/`Response` objects, no web
 * streams, and the timeout is undici's own per-request headers/body timeout (no timer of ours per call). Network
 * failures reject like fetch's (`TypeError('fetch failed', { cause })`), so one classification serves both senders.
 */
export function dispatcherSender(dispatcher: () => Dispatcher | Promise<Dispatcher>, maxBytes: number): HttpSender {
  return async (request) => {
    const pool = await dispatcher();
    // undici's timers tick about once a second: a short timeout gets a timer of its own to be kept to the millisecond.
    const timer = request.timeoutMs < PRECISE_BELOW_MS ? timedSignal(request) : undefined;
    const signal = timer?.signal ?? request.signal;
    let data: Dispatcher.ResponseData;
    try {
      data = await pool.request({
        origin: request.endpoint.origin,
        path: request.endpoint.path,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      timer?.release();
      throw networkFailure(error, request, timer?.signal);
    } finally {
      timer?.stop();
    }
    return dispatcherResponse(data, request, maxBytes, timer?.release);
  };
}

/** Below this, a request's timeout is a timer of its own rather than undici's coarse one. */
const PRECISE_BELOW_MS = 30_000;

/**
 * A signal the caller's abort and the request's timeout both abort; `stop()` ends the timeout once the headers
 * arrived (the SDKs' own timeout covers that wait), `release()` unlinks the caller's signal when the body is done.
 */
function timedSignal(request: WireRequest) {
  const controller = new AbortController();
  const caller = request.signal;
  if (caller?.aborted) controller.abort(caller.reason);
  const onAbort = () => controller.abort(caller?.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new WireTimeoutError(request.timeoutMs)), request.timeoutMs);
  return {
    signal: controller.signal,
    stop: () => clearTimeout(timer),
    release: () => caller?.removeEventListener('abort', onAbort),
  };
}

function dispatcherResponse(
  data: Dispatcher.ResponseData,
  request: WireRequest,
  maxBytes: number,
  release = () => {},
): WireResponse {
  const raw = data.headers;
  const encoding = raw['content-encoding'];
  // Nothing asks for compression (no accept-encoding is sent); a server that compresses anyway is still read.
  const body = encoding === undefined ? data.body : decoded(data.body, encoding, maxBytes);
  const failing = (error: unknown) => networkFailure(error, request);
  const close = () => {
    release();
    if (!body.readableEnded) body.destroy();
  };
  return {
    status: data.statusCode,
    header(name) {
      const value = raw[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    headers() {
      const headers = new Headers();
      for (const [name, value] of Object.entries(raw))
        for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
          headers.append(name, item);
      return headers;
    },
    async text() {
      try {
        return encoding === undefined ? await data.body.text() : await readAll(body);
      } catch (error) {
        throw failing(error);
      } finally {
        release();
      }
    },
    events: () => serverEvents(body, { failure: failing, close }),
    discard() {
      release();
      data.body.dump().catch(() => undefined);
    },
  };
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Sends through a `fetch` the caller gave (`providers.<name>.fetch`): their proxies, instrumentation and limits.
 * The timeout covers the wait for the response headers, as the SDKs' own does.
 */
export function fetchSender(fetchImpl: typeof fetch): HttpSender {
  return async (request) => {
    if (request.signal?.aborted) throw request.signal.reason;
    const timer = timedSignal(request);
    let response: Response;
    try {
      response = await fetchImpl(request.endpoint.origin + request.endpoint.path, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: timer.signal,
      });
    } catch (error) {
      timer.release();
      throw timer.signal.aborted ? timer.signal.reason : error;
    } finally {
      timer.stop();
    }
    return fetchResponse(response, timer.release);
  };
}

function fetchResponse(response: Response, release: () => void): WireResponse {
  const close = async () => {
    release();
    await response.body?.cancel().catch(() => undefined);
  };
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    headers: () => response.headers,
    async text() {
      try {
        return await response.text();
      } finally {
        release();
      }
    },
    events: () => serverEvents(response.body ?? EMPTY, { failure: (error) => error, close }),
    discard() {
      release();
      response.body?.cancel().catch(() => undefined);
    },
  };
}

const EMPTY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

/** undici's failure as fetch words it, a timeout as `WireTimeoutError`, the caller's abort as its reason. */
function networkFailure(error: unknown, request: WireRequest, timed?: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason;
  if (timed?.aborted) return timed.reason;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return new WireTimeoutError(request.timeoutMs, error);
  if (error instanceof Error && (error.name === 'AbortError' || error instanceof TypeError)) return error;
  return new TypeError('fetch failed', { cause: error });
}

/** `https://host/v1` + `/chat/completions` → the endpoint, kept by the adapter for every call. */
export function endpointOf(baseURL: string, path: string): Endpoint {
  const url = new URL(baseURL.replace(/\/+$/, '') + path);
  return { origin: url.origin, path: url.pathname + url.search };
}
