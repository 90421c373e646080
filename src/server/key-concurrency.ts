import { randomUUID } from 'node:crypto';
import { giveBack } from '../budgets/give-back.ts';
import type { SlotHold, SpendStore } from '../budgets/spend-store.ts';
import { HttpError } from './responses.ts';

/** Requests one API key may have in flight at once in `switchyard serve`, unless configured. */
export const DEFAULT_MAX_CONCURRENT_PER_KEY = 64;

/**
 * How long a request's in-flight slot in a shared store outlives a process that died holding it (the primary of
 * `serve --workers` gives a dead worker's slots back at once; Redis lets them lapse). A request running longer gives
 * its slot back early: the limit loosens for a while, it never refuses wrongly.
 */
export const IN_FLIGHT_HOLD_MS = 15 * 60_000;

/** The slot in a shared store counting a key's requests in flight. */
export const inFlightSlot = (keyId: string) => `inflight\u0000${keyId}`;

/**
 * One request's hold on a key's in-flight slot. The slots are a pool of their own (`SlotHold.pool`): there are only
 * as many as keys with requests in flight, and a store bounding its memory never refuses one for room, as it refuses
 * a budget kept for its window (a 500 for every key once budgets filled the primary's store of `serve --workers`).
 */
export function inFlightHold(keyId: string, limit: number): SlotHold {
  return { slot: inFlightSlot(keyId), pool: 'inflight', limit, amount: 1 };
}

/**
 * In-flight requests per API key, so one key cannot take every upstream connection: the server's limit for keys
 * without their own (`KeyLimiter` holds a key's own). Keyed by the id of a key that authenticated (never by what a
 * client sent), so the map holds at most as many entries as there are keys. Counted in this process, or as holds in
 * a store several processes share (`shared`: the primary of `serve --workers`).
 */
export class KeyConcurrency {
  readonly limit: number;
  readonly #active = new Map<string, number>();
  readonly #shared: SpendStore | undefined;

  constructor(limit: number, shared?: SpendStore) {
    this.limit = Math.max(1, Math.floor(limit));
    this.#shared = shared;
  }

  /** Requests of the key in flight now (in every process sharing the store). */
  async current(keyId: string): Promise<number> {
    if (this.#shared) return heldIn(this.#shared, inFlightSlot(keyId));
    return this.#active.get(keyId) ?? 0;
  }

  /** A slot for the key, or a 429 in the OpenAI shape; the returned function gives the slot back (once). */
  acquire(keyId: string): Promise<() => void> {
    return this.acquireAll([{ id: keyId, whose: 'This API key' }]);
  }

  /**
   * A slot of each key, all or none (a key and those that minted it), or a 429 naming the first that has none left
   * (`whose`); the returned function gives them back (once).
   */
  async acquireAll(keys: ReadonlyArray<{ id: string; whose: string }>): Promise<() => void> {
    if (this.#shared) return this.#acquireShared(this.#shared, keys);
    const full = keys.find(({ id }) => (this.#active.get(id) ?? 0) >= this.limit);
    if (full) throw this.#refusal(full.whose);
    for (const { id } of keys) this.#active.set(id, (this.#active.get(id) ?? 0) + 1);
    return once(() => {
      for (const { id } of keys) {
        const left = (this.#active.get(id) ?? 1) - 1;
        if (left === 0) this.#active.delete(id);
        else this.#active.set(id, left);
      }
    });
  }

  /** One hold of 1 on each key's in-flight slot, taken only while every process's holds are under the limit. */
  async #acquireShared(shared: SpendStore, keys: ReadonlyArray<{ id: string; whose: string }>): Promise<() => void> {
    const id = randomUUID();
    const holds = keys.map((key) => inFlightHold(key.id, this.limit));
    const refused = await shared.reserve(id, holds, IN_FLIGHT_HOLD_MS).catch((error: unknown) => {
      // Failed as seen from here, maybe taken all the same (a timeout): given back.
      giveBack(shared, id, holds, IN_FLIGHT_HOLD_MS);
      throw error;
    });
    if (refused) throw this.#refusal(keys[refused.index]!.whose);
    return once(() => giveBack(shared, id, holds, IN_FLIGHT_HOLD_MS));
  }

  #refusal(whose: string): HttpError {
    return inFlightRefusal(whose, this.limit, ', the most this server allows');
  }
}

/** Spent and held of a slot: a check that holds nothing, with a limit of 0 so it answers both. */
export async function heldIn(store: SpendStore, slot: string): Promise<number> {
  const check: SlotHold = { slot, limit: 0, amount: 0 };
  const refusal = await store.reserve(randomUUID(), [check], 1);
  return Math.round((refusal?.spent ?? 0) + (refusal?.held ?? 0));
}

/** The 429 of a key (`whose`) with `limit` requests in flight already. */
export function inFlightRefusal(whose: string, limit: number, why = ''): HttpError {
  return new HttpError(429, `${whose} already has ${limit} requests in flight${why}; retry once one has finished.`, {
    type: 'rate_limit_error',
    code: 'concurrency_limit_exceeded',
    headers: { 'retry-after': '1' },
  });
}

/** `release`, run the first time the returned function is called only. */
export function once(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}
