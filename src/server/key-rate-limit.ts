import type { Redis } from 'ioredis';
import { peekRedisTokens, takeRedisToken } from '../budgets/redis-counters.ts';
import type { StorageUnavailableError } from '../errors.ts';
import { HttpError } from './responses.ts';
import { redisUnavailable } from './shared-state.ts';

/**
 * What the request rate limit does when Redis cannot be reached: `open` counts in this process meanwhile (each
 * replica allows the whole rate: a key may make up to replicas × the limit), `closed` answers 503
 * `storage_unavailable`.
 */
export type OnStoreError = 'open' | 'closed';

export interface KeyRateLimitOptions {
  /** Where the buckets are shared by replicas; default this process. */
  redis?: Redis | undefined;
  /** Default `open`: the limit guards against floods, and the per-process count still does while Redis is down. */
  onStoreError?: OnStoreError | undefined;
  /** Hears each Redis failure `open` lets through (counted, logged once per interval); `closed` throws it. */
  onStorageError?: ((error: StorageUnavailableError) => void) | undefined;
}

/**
 * Requests per minute per API key, as a token bucket: `perMinute` requests at once, refilled evenly over the minute;
 * each key's rate is given with each request (a key's own, or the server's). Counted in this process (keyed by the
 * ids of keys that authenticated: as many entries as there are keys), or in Redis (`--redis`), where every replica
 * takes from the one bucket.
 */
export class KeyRateLimit {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #redis: Redis | undefined;
  readonly #options: KeyRateLimitOptions;

  constructor(options: KeyRateLimitOptions = {}) {
    this.#redis = options.redis;
    this.#options = options;
  }

  /**
   * Takes one request from the key's bucket of `perMinute`, or throws a 429 in the OpenAI shape with `retry-after`,
   * saying whose rate it is (`whose`: this key's, or the key that minted it).
   */
  async take(keyId: string, perMinute: number, whose = 'This API key'): Promise<void> {
    const capacity = Math.max(1, Math.floor(perMinute));
    const perMs = capacity / 60_000;
    const { taken, tokens } = this.#redis
      ? await this.#takeShared(this.#redis, keyId, capacity, perMs)
      : this.#takeHere(keyId, capacity, perMs);
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
    if (this.#redis) {
      try {
        return Math.floor(await peekRedisTokens(this.#redis, keyId, capacity, perMs));
      } catch (error) {
        if (this.#options.onStoreError === 'closed') throw redisUnavailable(error);
      }
    }
    const bucket = this.#buckets.get(keyId);
    if (!bucket) return capacity;
    return Math.floor(Math.min(capacity, bucket.tokens + (performance.now() - bucket.at) * perMs));
  }

  /** From the bucket in Redis; while Redis fails, from this process's (`open`) or a 503 (`closed`). */
  async #takeShared(
    redis: Redis,
    keyId: string,
    capacity: number,
    perMs: number,
  ): Promise<{ taken: boolean; tokens: number }> {
    try {
      return await takeRedisToken(redis, keyId, capacity, perMs);
    } catch (error) {
      const failure = redisUnavailable(error);
      if (this.#options.onStoreError === 'closed') throw failure;
      this.#options.onStorageError?.(failure);
      return this.#takeHere(keyId, capacity, perMs);
    }
  }

  #takeHere(keyId: string, capacity: number, perMs: number): { taken: boolean; tokens: number } {
    const now = performance.now();
    const bucket = this.#buckets.get(keyId) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.#buckets.set(keyId, bucket);
    if (bucket.tokens < 1) return { taken: false, tokens: bucket.tokens };
    bucket.tokens -= 1;
    return { taken: true, tokens: bucket.tokens };
  }
}
