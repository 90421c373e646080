import { MemoryTokenBuckets, type TokenBuckets } from '../budgets/token-buckets.ts';
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
 * Requests per minute per API key, as a token bucket: `perMinute` requests at once, refilled evenly over the minute.
 * Counted in this process (keyed by the ids of keys that authenticated: as many entries as there are keys), or in a
 * shared store (Redis, the primary of `serve --workers`), where every process takes from the one bucket.
 */
export class KeyRateLimit {
  readonly perMinute: number;
  readonly #here = new MemoryTokenBuckets();
  readonly #options: KeyRateLimitOptions;

  constructor(perMinute: number, options: KeyRateLimitOptions = {}) {
    this.perMinute = Math.max(1, Math.floor(perMinute));
    this.#options = options;
  }

  /** Takes one request from the key's bucket, or throws a 429 in the OpenAI shape with `retry-after`. */
  async take(keyId: string): Promise<void> {
    const perMs = this.perMinute / 60_000;
    const { shared } = this.#options;
    const { taken, tokens } = shared
      ? await this.#takeShared(shared, keyId, perMs)
      : this.#here.takeNow(keyId, this.perMinute, perMs);
    if (taken) return;
    const waitSeconds = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    throw new HttpError(429, `This API key may make ${this.perMinute} requests a minute; retry in ${waitSeconds} s.`, {
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(waitSeconds) },
    });
  }

  /** From the shared bucket; while its store fails, from this process's (`open`) or a 503 (`closed`). */
  async #takeShared(shared: TokenBuckets, keyId: string, perMs: number): Promise<{ taken: boolean; tokens: number }> {
    try {
      return await shared.take(keyId, this.perMinute, perMs);
    } catch (error) {
      const failure =
        storageErrorOf(error) ??
        new StorageUnavailableError(
          shared.component,
          `The counter store (${shared.component}) is unavailable; retry shortly.`,
          error,
        );
      if (this.#options.onStoreError === 'closed') throw failure;
      this.#options.onStorageError?.(failure);
      return this.#here.takeNow(keyId, this.perMinute, perMs);
    }
  }
}
