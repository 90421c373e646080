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

/** Buckets in this process, keyed by what the caller names (the ids of keys that authenticated: bounded by them). */
export class MemoryTokenBuckets implements TokenBuckets {
  readonly component = 'memory';
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

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
    const bucket = this.#buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return { taken: false, tokens: bucket.tokens };
    bucket.tokens -= 1;
    return { taken: true, tokens: bucket.tokens };
  }
}
