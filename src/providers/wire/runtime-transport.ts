import { InternalError } from '../../errors.ts';
import type { PooledFetchOptions } from '../../internal/http-transport.ts';
import { describeLocalFault } from '../../internal/local-fault.ts';
import { withResponseLimit } from '../../internal/response-limit.ts';
import { isNode } from '../../internal/runtime.ts';
import { fetchSender } from './fetch-sender.ts';
import type { HttpSender } from './http-sender.ts';

/** What every provider of a gateway sends through: a `fetch` for the SDKs, and the wire transports' sender. */
export interface SharedTransport {
  fetch: typeof fetch;
  send: HttpSender;
}

/**
 * The transport that fits the runtime. On Node.js, one pooled keep-alive undici dispatcher (what makes Node fast,
 * bench/), loaded with the first request. Elsewhere (Bun, whose undici has no working `Agent`; Deno; workers) the
 * runtime's own `fetch`, with the same converters, event parser, size limit and error mapping; the timeout covers the
 * response headers there, as with a caller's fetch (undici's per-chunk body timeout has no fetch counterpart).
 */
export function runtimeTransport(options: PooledFetchOptions & { maxResponseBytes: number }): SharedTransport {
  if (isNode()) return pooledTransport(options);
  // Looked up on each request, not captured: a fetch installed (or instrumented) after the gateway is still used.
  const limited = withResponseLimit((input, init) => globalThis.fetch(input, init), options.maxResponseBytes);
  return { fetch: limited, send: fetchSender(limited) };
}

/** The pooled transport, its module (and node:stream, node:zlib, undici behind it) imported on first use. */
function pooledTransport(options: PooledFetchOptions & { maxResponseBytes: number }): SharedTransport {
  let ready: SharedTransport | undefined;
  let loading: Promise<SharedTransport> | undefined;
  const load = () => {
    loading ??= Promise.all([import('../../internal/http-transport.ts'), import('./dispatcher-sender.ts')]).then(
      ([{ createPooledTransport }, { dispatcherSender }]) => {
        const pooled = createPooledTransport(options);
        ready = { fetch: pooled.fetch, send: dispatcherSender(pooled.dispatcher, options.maxResponseBytes) };
        return ready;
      },
      (error: unknown) => {
        throw new InternalError(`The HTTP transport could not be loaded: ${describeLocalFault(error)}`, error);
      },
    );
    return loading;
  };
  return {
    fetch: ((input, init) =>
      ready ? ready.fetch(input, init) : load().then((it) => it.fetch(input, init))) as typeof fetch,
    send: (request) => (ready ? ready.send(request) : load().then((it) => it.send(request))),
  };
}
