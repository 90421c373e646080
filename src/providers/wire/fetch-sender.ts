import { type HttpSender, timedSignal, type WireResponse } from './http-sender.ts';
import { serverEvents } from './server-events.ts';

/**
 * Sends through a `fetch`: the caller's (`providers.<name>.fetch`: their proxies, instrumentation and limits), or the
 * runtime's own where the pooled undici transport is not used (Bun, Deno, workers). The timeout covers the wait for
 * the response headers, as the SDKs' own does.
 *
 * Whose fault a failure is follows from where it is thrown. A `fetch` that throws before it returns a promise never
 * sent anything: that is a fault of this process (a missing runtime API, a bug), left as it is for the error mapping
 * to report as ours. A rejected promise, and a body that fails while read, is the network by fetch's contract (a
 * browser's `TypeError: Failed to fetch`, Deno's `TypeError: error sending request`, neither with a cause): it is
 * worded as Node's fetch words it, `TypeError('fetch failed', { cause })`, so one classification serves every sender.
 */
export function fetchSender(fetchImpl: typeof fetch): HttpSender {
  return async (request) => {
    if (request.signal?.aborted) throw request.signal.reason;
    const timer = timedSignal(request);
    let pending: Promise<Response>;
    try {
      pending = fetchImpl(request.endpoint.origin + request.endpoint.path, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: timer.signal,
      });
    } catch (error) {
      timer.stop();
      timer.release();
      throw error;
    }
    let response: Response;
    try {
      response = await pending;
    } catch (error) {
      timer.release();
      throw timer.signal.aborted ? timer.signal.reason : networkFailure(error);
    } finally {
      timer.stop();
    }
    return fetchResponse(response, timer.release, request.signal);
  };
}

function fetchResponse(response: Response, release: () => void, signal: AbortSignal | undefined): WireResponse {
  const close = async () => {
    release();
    await response.body?.cancel().catch(() => undefined);
  };
  const failure = (error: unknown) => (signal?.aborted ? signal.reason : networkFailure(error));
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    headers: () => response.headers,
    async text() {
      try {
        return await response.text();
      } catch (error) {
        throw failure(error);
      } finally {
        release();
      }
    },
    events: () => serverEvents(response.body ?? EMPTY, { failure, close }),
    discard() {
      release();
      response.body?.cancel().catch(() => undefined);
    },
  };
}

const EMPTY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

/**
 * A rejection of fetch as Node's fetch words one: already so (a cause), an abort and a `ReferenceError` (a name this
 * runtime lacks, in an async wrapper) pass unchanged; anything else is the network's, with the original as cause.
 */
function networkFailure(error: unknown): unknown {
  if (error instanceof ReferenceError) return error;
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return error;
  if (error instanceof TypeError && error.cause !== undefined) return error;
  return new TypeError('fetch failed', { cause: error });
}
