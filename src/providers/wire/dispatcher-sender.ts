import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { decoded } from '../../internal/http-transport.ts';
import { type DispatchedResponse, dispatchedRequest } from './dispatched-request.ts';
import { type HttpSender, timedSignal, type WireRequest, type WireResponse, WireTimeoutError } from './http-sender.ts';
import { serverEvents } from './server-events.ts';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Sends on the pooled undici dispatcher itself (`dispatchedRequest`, a lean `dispatcher.request`): no
 * `Request`/`Response` objects, no web streams, and the timeout is undici's own per-request headers/body timeout (no
 * timer of ours per call). Network failures reject like fetch's (`TypeError('fetch failed', { cause })`), so one
 * classification serves both senders.
 */
export function dispatcherSender(dispatcher: () => Dispatcher | Promise<Dispatcher>, maxBytes: number): HttpSender {
  return async (request) => {
    const pool = await dispatcher();
    // undici's timers tick about once a second: a short timeout gets a timer of its own to be kept to the millisecond.
    const timer = request.timeoutMs < PRECISE_BELOW_MS ? timedSignal(request) : undefined;
    const signal = timer?.signal ?? request.signal;
    let data: DispatchedResponse;
    try {
      const options = {
        origin: request.endpoint.origin,
        path: request.endpoint.path,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      } as const;
      data = await dispatchedRequest(pool, options, signal);
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

function dispatcherResponse(
  data: DispatchedResponse,
  request: WireRequest,
  maxBytes: number,
  release = () => {},
): WireResponse {
  const raw = data.headers;
  const encoding = raw['content-encoding'];
  // Nothing asks for compression (no accept-encoding is sent); a server that compresses anyway is still read.
  const stream = () => (encoding === undefined ? data.body : decoded(data.body, encoding, maxBytes));
  const failing = (error: unknown) => networkFailure(error, request);
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
        // An answer read whole is gathered without a stream (the common case: a plain JSON answer).
        return await (encoding === undefined ? data.text() : readAll(stream()));
      } catch (error) {
        throw failing(error);
      } finally {
        release();
      }
    },
    events() {
      const body = stream();
      const close = () => {
        release();
        if (!body.readableEnded) body.destroy();
      };
      return serverEvents(body, { failure: failing, close });
    },
    discard() {
      release();
      drain(data.body);
    },
  };
}

/** The whole body as text (UTF-8), from its chunks as they come. */
function readAll(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    body.on('data', (chunk: Buffer) => parts.push(chunk));
    body.once('end', () => resolve(parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString()));
    body.once('error', reject);
  });
}

/** Most a discarded body is read to keep its connection: past it, the request is aborted (as undici's `dump`). */
const DRAIN_LIMIT = 128 * 1024;

/** A body nobody reads: read and dropped, so its connection can serve the next request, or ended if it is long. */
function drain(body: Readable): void {
  let read = 0;
  body.on('error', () => undefined);
  body.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAIN_LIMIT) body.destroy();
  });
}

/** undici's failure as fetch words it, a timeout as `WireTimeoutError`, the caller's abort as its reason. */
function networkFailure(error: unknown, request: WireRequest, timed?: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason;
  if (timed?.aborted) return timed.reason;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return new WireTimeoutError(request.timeoutMs, error);
  if (error instanceof Error && (error.name === 'AbortError' || error instanceof TypeError)) return error;
  return new TypeError('fetch failed', { cause: error });
}
