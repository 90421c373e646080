import type { Redis } from 'ioredis';
import type { ResponseCacheStore } from './cache-store.ts';

/**
 * The response cache in Redis, shared by every replica pointed at it. Each entry expires by itself (`PX`); the
 * memory it may take is Redis's own `maxmemory` and eviction policy.
 */
export class RedisCacheStore implements ResponseCacheStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, options: { prefix?: string } = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'switchyard:response-cache:';
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.#redis.get(this.#prefix + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    await this.#redis.set(this.#prefix + key, value, 'PX', Math.ceil(ttlMs));
  }
}
