import { MemoryCacheStore, type ResponseCacheStore } from './cache-store.ts';

/** Per call (`request.cache`) and per gateway: `auto` caches only deterministic requests (`isDeterministic`). */
export type CacheMode = 'auto' | 'always' | 'never';

/** `createGateway({ cache })`: the exact-match response cache. See docs/caching.md, "Response cache". */
export interface ResponseCacheOptions {
  /** Where entries live (default: a `MemoryCacheStore`, 1,000 entries and 64 MiB at most). */
  store?: ResponseCacheStore;
  /** What a call without its own `cache` does (default `auto`). */
  mode?: CacheMode;
  /** How long an answer is served from the cache (default 3,600 s). */
  ttlSeconds?: number;
  /**
   * Whose entries calls without a key read and write (default `gateway`). A call with a key uses its tenant instead
   * (`tenantOf`: `access.tenant`, else the root of its key's lineage): tenants never see each other's answers.
   */
  tenant?: string;
  /** Answers larger than this (UTF-8 bytes of the entry) are not cached (default 1 MiB). */
  maxEntryBytes?: number;
}

/** The cache a gateway's calls share: its store and the settings every call reads. */
export interface ResponseCache {
  readonly store: ResponseCacheStore;
  readonly mode: CacheMode;
  readonly ttlMs: number;
  readonly tenant: string;
  readonly maxEntryBytes: number;
}

/**
 * The gateway's cache from its options. Without `cache` a memory store is there for the calls that ask for it
 * (`cache: 'auto' | 'always'`), and the others are not cached; `false` turns the cache off for every call.
 */
export function responseCacheOf(options: false | ResponseCacheOptions | undefined): ResponseCache | undefined {
  if (options === false) return undefined;
  return {
    store: options?.store ?? new MemoryCacheStore(),
    mode: options ? (options.mode ?? 'auto') : 'never',
    ttlMs: Math.max(0, (options?.ttlSeconds ?? 3_600) * 1_000),
    tenant: options?.tenant ?? 'gateway',
    maxEntryBytes: options?.maxEntryBytes ?? 1024 * 1024,
  };
}
