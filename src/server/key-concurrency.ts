import { randomUUID } from 'node:crypto';
import type { SpendStore } from '../budgets/spend-store.ts';
import { HttpError } from './responses.ts';

/** Requests one API key may have in flight at once in `switchyard serve`, unless configured. */
export const DEFAULT_MAX_CONCURRENT_PER_KEY = 64;

/**
 * How long a request's slot in a shared store outlives a process that died holding it (the primary of
 * `serve --workers` gives a dead worker's slots back at once). A request running longer gives its slot back early:
 * the limit loosens for a while, it never refuses wrongly.
 */
const SHARED_SLOT_HOLD_MS = 15 * 60_000;

/**
 * In-flight requests per API key, so one key cannot take every upstream connection. Keyed by the id of a key that
 * authenticated (never by what a client sent), so the map holds at most as many entries as there are keys. Counted
 * in this process, or as holds in a store several processes share (`shared`: the primary of `serve --workers`).
 */
export class KeyConcurrency {
  readonly limit: number;
  readonly #active = new Map<string, number>();
  readonly #shared: SpendStore | undefined;

  constructor(limit: number, shared?: SpendStore) {
    this.limit = Math.max(1, Math.floor(limit));
    this.#shared = shared;
  }

  /** A slot for the key, or a 429 in the OpenAI shape; the returned function gives the slot back (once). */
  async acquire(keyId: string): Promise<() => void> {
    if (this.#shared) return this.#acquireShared(this.#shared, keyId);
    const active = this.#active.get(keyId) ?? 0;
    if (active >= this.limit) throw this.#refusal();
    this.#active.set(keyId, active + 1);
    return once(() => {
      const left = (this.#active.get(keyId) ?? 1) - 1;
      if (left === 0) this.#active.delete(keyId);
      else this.#active.set(keyId, left);
    });
  }

  /** One hold of 1 on the key's in-flight slot, taken only while every process's holds are under the limit. */
  async #acquireShared(shared: SpendStore, keyId: string): Promise<() => void> {
    const id = randomUUID();
    const holds = [{ slot: `inflight\u0000${keyId}`, limit: this.limit, amount: 1 }];
    if (await shared.reserve(id, holds, SHARED_SLOT_HOLD_MS)) throw this.#refusal();
    // Given back off the request's path; a store that failed meanwhile lets the hold lapse by itself.
    return once(() => void shared.settle(id, holds, []).catch(() => undefined));
  }

  #refusal(): HttpError {
    return new HttpError(
      429,
      `This API key already has ${this.limit} requests in flight, the most this server allows; ` +
        'retry once one has finished.',
      { type: 'rate_limit_error', code: 'concurrency_limit_exceeded', headers: { 'retry-after': '1' } },
    );
  }
}

function once(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}
