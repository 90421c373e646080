import { createPooledTransport, type PooledFetchOptions } from '../../internal/http-transport.ts';
import { dispatcherSender, type HttpSender } from './http-sender.ts';

/** What a gateway's providers send on when the caller gives no `fetch`: the SDKs' fetch, and the wire's sender. */
export interface DefaultTransport {
  fetch: typeof fetch;
  send: HttpSender;
}

/**
 * The transport seam of issue 38: on Node.js, one pooled keep-alive undici dispatcher (loaded on first use) for the
 * wire transports and the SDKs. The web build swaps this file for default-transport.web.ts.
 */
export function createDefaultTransport(options: PooledFetchOptions & { maxResponseBytes: number }): DefaultTransport {
  const transport = createPooledTransport(options);
  return { fetch: transport.fetch, send: dispatcherSender(transport.dispatcher, options.maxResponseBytes) };
}
