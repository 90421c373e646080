import type { ServerEvent } from './server-events.ts';

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

export interface TimedSignal {
  signal: AbortSignal;
  stop: () => void;
  release: () => void;
}

/**
 * A signal the caller's abort and the request's timeout both abort; `stop()` ends the timeout once the headers
 * arrived (the SDKs' own timeout covers that wait), `release()` unlinks the caller's signal when the body is done.
 */
export function timedSignal(request: WireRequest): TimedSignal {
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

/** `https://host/v1` + `/chat/completions` → the endpoint, kept by the adapter for every call. */
export function endpointOf(baseURL: string, path: string): Endpoint {
  const url = new URL(baseURL.replace(/\/+$/, '') + path);
  return { origin: url.origin, path: url.pathname + url.search };
}
