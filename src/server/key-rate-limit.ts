import { MemoryTokenBuckets, type TokenBuckets, type TokenTake } from '../budgets/token-buckets.ts';
import { StorageUnavailableError } from '../errors.ts';
import { HttpError } from './responses.ts';
import { storageErrorOf } from './shared-state.ts';

/**
 * What the request rate limit does when its shared store (Redis) cannot be reached: `open` counts in each process
 * meanwhile (each replica allows the whole rate: a key may make up to replicas × the limit), `closed` answers 503
 * `storage_unavailable`.
 */
export type OnStoreError = 'open' | 'closed';

export interface KeyRateLimitOptions {
  /**
   * Where the buckets are shared: Redis by replicas (`RedisTokenBuckets`), the primary by the workers of
   * `serve --workers`. Default this process.
   */
  shared?: TokenBuckets | undefined;
  /** Default `open`: the limit guards against floods, and the per-process count still does while the store is down. */
  onStoreError?: OnStoreError | undefined;
  /** Hears each store failure `open` lets through (counted, logged once per interval); `closed` throws it. */
  onStorageError?: ((error: StorageUnavailableError) => void) | undefined;
}

/**
 * Requests per minute per API key, as a token bucket: `perMinute` requests at once, refilled evenly over the minute;
 * each key's rate is given with each request (a key's own, or the server's). Counted in this process (keyed by the
 * ids of keys that authenticated: as many entries as there are keys), or in a shared store (Redis, the primary of
 * `serve --workers`), where every process takes from the one bucket.
 */
export class KeyRateLimit {
  readonly #here = new MemoryTokenBuckets();
  readonly #options: KeyRateLimitOptions;

  constructor(options: KeyRateLimitOptions = {}) {
    this.#options = options;
  }

  /**
   * Takes one request from the key's bucket of `perMinute`, or throws a 429 in the OpenAI shape with `retry-after`,
   * saying whose rate it is (`whose`: this key's, or the key that minted it).
   */
  async take(keyId: string, perMinute: number, whose = 'This API key'): Promise<void> {
    const capacity = Math.max(1, Math.floor(perMinute));
    const perMs = capacity / 60_000;
    const { shared } = this.#options;
    const { taken, tokens } = shared
      ? await this.#takeShared(shared, keyId, capacity, perMs)
      : this.#here.takeNow(keyId, capacity, perMs);
    if (taken) return;
    const waitSeconds = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    throw new HttpError(429, `${whose} may make ${capacity} requests a minute; retry in ${waitSeconds} s.`, {
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(waitSeconds) },
    });
  }

  /** The requests left in the key's bucket now (whole), taking none. */
  async remaining(keyId: string, perMinute: number): Promise<number> {
    const capacity = Math.max(1, Math.floor(perMinute));
    const perMs = capacity / 60_000;
    const { shared } = this.#options;
    if (shared) {
      try {
        return Math.floor(await shared.peek(keyId, capacity, perMs));
      } catch (error) {
        if (this.#options.onStoreError === 'closed') throw this.#failure(shared, error);
      }
    }
    return Math.floor(this.#here.peekNow(keyId, capacity, perMs));
  }

  /** From the shared bucket; while its store fails, from this process's (`open`) or a 503 (`closed`). */
  async #takeShared(shared: TokenBuckets, keyId: string, capacity: number, perMs: number): Promise<TokenTake> {
    try {
      return await shared.take(keyId, capacity, perMs);
    } catch (error) {
      const failure = this.#failure(shared, error);
      if (this.#options.onStoreError === 'closed') throw failure;
      this.#options.onStorageError?.(failure);
      return this.#here.takeNow(keyId, capacity, perMs);
    }
  }

  #failure(shared: TokenBuckets, error: unknown): StorageUnavailableError {
    return (
      storageErrorOf(error) ??
      new StorageUnavailableError(
        shared.component,
        `The counter store (${shared.component}) is unavailable; retry shortly.`,
        error,
      )
    );
  }
}
