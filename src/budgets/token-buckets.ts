import { SweptMap } from '../internal/swept-map.ts';

/**
 * Where request rates are counted, as token buckets: this process (`MemoryTokenBuckets`), Redis shared by replicas
 * (`RedisTokenBuckets`), or the primary of `serve --workers` for its workers. Each call names the bucket and gives its
 * capacity and refill rate, so one store holds buckets of any size (a key's own rate, the server's default).
 */
export interface TokenBuckets {
  /** What a failure of this store is reported as (`StorageUnavailableError.component`): `redis`, `primary`. */
  readonly component: string;
  /**
   * Takes one token from `bucket` if it has one: `capacity` tokens at most, refilled at `perMs` a millisecond.
   * Returns whether one was taken and the tokens left (the caller derives the wait from them).
   */
  take(bucket: string, capacity: number, perMs: number): Promise<TokenTake>;
  /** The tokens in `bucket` now, refilled as `take` would, taking none (`GET /v1/keys`). */
  peek(bucket: string, capacity: number, perMs: number): Promise<number>;
}

export interface TokenTake {
  taken: boolean;
  tokens: number;
}

/**
 * Buckets in this process, keyed by what the caller names (the ids of keys that authenticated). A bucket that has
 * refilled is the same as none, so those are let go (`SweptMap`): keys minted and revoked without end cost nothing.
 */
export class MemoryTokenBuckets implements TokenBuckets {
  readonly component = 'memory';
  readonly #buckets = new SweptMap<string, Bucket>((bucket, now) => bucket.fullAt <= now);

  /** The buckets held: those not yet refilled, and at most as many refilled ones. */
  get size(): number {
    return this.#buckets.size;
  }

  async take(bucket: string, capacity: number, perMs: number): Promise<TokenTake> {
    return this.takeNow(bucket, capacity, perMs);
  }

  async peek(bucket: string, capacity: number, perMs: number): Promise<number> {
    return this.peekNow(bucket, capacity, perMs);
  }

  peekNow(key: string, capacity: number, perMs: number): number {
    const bucket = this.#buckets.get(key);
    if (!bucket) return capacity;
    return Math.min(capacity, bucket.tokens + (performance.now() - bucket.at) * perMs);
  }

  /** `take`, answered in the same turn (the fallback while a shared store fails). */
  takeNow(key: string, capacity: number, perMs: number): TokenTake {
    const now = performance.now();
    const bucket = this.#buckets.get(key) ?? { tokens: capacity, at: now, fullAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    const taken = bucket.tokens >= 1;
    if (taken) bucket.tokens -= 1;
    const missing = capacity - bucket.tokens;
    bucket.fullAt = missing <= 0 ? now : now + missing / perMs;
    this.#buckets.set(key, bucket);
    return { taken, tokens: bucket.tokens };
  }
}

interface Bucket {
  tokens: number;
  at: number;
  /** When it holds `capacity` again, untouched (`performance.now()` time). */
  fullAt: number;
}
