import type { Dispatcher } from 'undici';
import { decoded } from '../../internal/http-transport.ts';
import { type HttpSender, timedSignal, type WireRequest, type WireResponse, WireTimeoutError } from './http-sender.ts';
import { serverEvents } from './server-events.ts';

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

/** undici's failure as fetch words it, a timeout as `WireTimeoutError`, the caller's abort as its reason. */
function networkFailure(error: unknown, request: WireRequest, timed?: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason;
  if (timed?.aborted) return timed.reason;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return new WireTimeoutError(request.timeoutMs, error);
  if (error instanceof Error && (error.name === 'AbortError' || error instanceof TypeError)) return error;
  return new TypeError('fetch failed', { cause: error });
}
