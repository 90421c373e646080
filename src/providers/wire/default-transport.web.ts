/**
 * The web build's transport seam (tsup.web.ts swaps it for default-transport.ts): Workers and browsers have no
 * undici, so providers send through the runtime's own `fetch`, with the answer size held to the same limit.
 *
 * PLACEHOLDER of issue 38 (h38-w): the minimal fetch transport, so wire calls run in workerd and Chromium. The
 * fetch-based wire transport of h38-x (its timeouts, errors and decoding) fills this seam at merge.
 */
import type { PooledFetchOptions } from '../../internal/http-transport.ts';
import { withResponseLimit } from '../../internal/response-limit.ts';
import type { DefaultTransport } from './default-transport.ts';
import { fetchSender } from './http-sender.ts';

export type { DefaultTransport } from './default-transport.ts';

export function createDefaultTransport(options: PooledFetchOptions & { maxResponseBytes: number }): DefaultTransport {
  // Called through a function, not kept: a Worker's fetch must be called with the global as `this`.
  const fetchImpl = withResponseLimit((input, init) => fetch(input, init), options.maxResponseBytes);
  return { fetch: fetchImpl, send: fetchSender(fetchImpl) };
}
