import { HttpError } from './responses.ts';

/** Requests one API key may have in flight at once in `switchyard serve`, unless configured. */
export const DEFAULT_MAX_CONCURRENT_PER_KEY = 64;

/**
 * In-flight requests per API key in this process, so one key cannot take every upstream connection. Keyed by the id
 * of a key that authenticated (never by what a client sent), so the map holds at most as many entries as there are
 * keys. A key's own `max_in_flight` is counted where replicas share it instead (`KeyLimiter`).
 */
export class KeyConcurrency {
  readonly limit: number;
  readonly #active = new Map<string, number>();

  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** Requests of the key in flight in this process now. */
  active(keyId: string): number {
    return this.#active.get(keyId) ?? 0;
  }

  /** A slot for the key, or a 429 in the OpenAI shape; the returned function gives the slot back (once). */
  acquire(keyId: string): () => void {
    const active = this.#active.get(keyId) ?? 0;
    if (active >= this.limit) throw inFlightRefusal('This API key', this.limit, ', the most this server allows');
    this.#active.set(keyId, active + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#active.get(keyId) ?? 1) - 1;
      if (left === 0) this.#active.delete(keyId);
      else this.#active.set(keyId, left);
    };
  }
}

/** The 429 of a key (`whose`) with `limit` requests in flight already. */
export function inFlightRefusal(whose: string, limit: number, why = ''): HttpError {
  return new HttpError(429, `${whose} already has ${limit} requests in flight${why}; retry once one has finished.`, {
    type: 'rate_limit_error',
    code: 'concurrency_limit_exceeded',
    headers: { 'retry-after': '1' },
  });
}
