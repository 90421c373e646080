import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { RedisCacheStore } from '../cache/redis-cache-store.ts';
import type { CacheMode, ResponseCacheOptions } from '../cache/response-cache.ts';
import { SqliteCacheStore } from '../cache/sqlite-cache-store.ts';
import { ensurePrivateFile } from '../internal/private-file.ts';

/** `serve --cache <store>`: where the response cache lives; `off` turns it off for every call. */
export type ServeCacheStore = 'memory' | 'sqlite' | 'redis' | 'off';

export interface ServeCacheSettings {
  store: ServeCacheStore;
  /** `--cache-ttl`, seconds (default 3,600). */
  ttlSeconds?: number | undefined;
  /** What a call without its own `cache` does (default `auto`: deterministic requests only). */
  mode?: CacheMode | undefined;
}

/**
 * The gateway's cache option for `serve`: in this process's memory, in the data directory's `response-cache.sqlite`,
 * or in the server's Redis (`--redis`), shared by its replicas. Every key reads only its own tenant's entries.
 */
export function openResponseCache(
  settings: ServeCacheSettings,
  redis: Redis | undefined,
  dataDir: string,
): false | ResponseCacheOptions {
  if (settings.store === 'off') return false;
  const common = {
    ...(settings.ttlSeconds !== undefined ? { ttlSeconds: settings.ttlSeconds } : {}),
    ...(settings.mode !== undefined ? { mode: settings.mode } : {}),
  };
  if (settings.store === 'memory') return common;
  if (settings.store === 'sqlite') {
    // Answers to callers' prompts: this user's alone, as the data file.
    const path = join(dataDir, 'response-cache.sqlite');
    ensurePrivateFile(path);
    return { ...common, store: new SqliteCacheStore(path) };
  }
  if (!redis) throw new Error("--cache redis keeps the cache in the server's Redis: give --redis <url> too.");
  return { ...common, store: new RedisCacheStore(redis) };
}
