import type { Redis } from 'ioredis';
import { takeRedisToken } from '../budgets/redis-counters.ts';
import { HttpError } from './responses.ts';

/**
 * Requests per minute per API key, as a token bucket: `perMinute` requests at once, refilled evenly over the minute.
 * Counted in this process (keyed by the ids of keys that authenticated: as many entries as there are keys), or in
 * Redis (`--redis`), where every replica takes from the one bucket.
 */
export class KeyRateLimit {
  readonly perMinute: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #redis: Redis | undefined;

  constructor(perMinute: number, redis?: Redis) {
    this.perMinute = Math.max(1, Math.floor(perMinute));
    this.#redis = redis;
  }

  /** Takes one request from the key's bucket, or throws a 429 in the OpenAI shape with `retry-after`. */
  async take(keyId: string): Promise<void> {
    const perMs = this.perMinute / 60_000;
    const { taken, tokens } = this.#redis
      ? await takeRedisToken(this.#redis, keyId, this.perMinute, perMs)
      : this.#takeHere(keyId, perMs);
    if (taken) return;
    const waitSeconds = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    throw new HttpError(429, `This API key may make ${this.perMinute} requests a minute; retry in ${waitSeconds} s.`, {
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(waitSeconds) },
    });
  }

  #takeHere(keyId: string, perMs: number): { taken: boolean; tokens: number } {
    const now = performance.now();
    const bucket = this.#buckets.get(keyId) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.#buckets.set(keyId, bucket);
    if (bucket.tokens < 1) return { taken: false, tokens: bucket.tokens };
    bucket.tokens -= 1;
    return { taken: true, tokens: bucket.tokens };
  }
}
