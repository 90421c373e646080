import { utf8Length } from '../internal/bytes.ts';
/**
 * Where the response cache keeps its entries: opaque strings under opaque keys (a SHA-256 hex of the request and
 * the tenant), each with a time to live. A store may forget an entry early (memory bounds, eviction); it must never
 * answer one after its time to live.
 */
export interface ResponseCacheStore {
  /** The entry, or `undefined` when there is none (or it has expired). */
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  close?(): Promise<void> | void;
}

export interface MemoryCacheOptions {
  /** Entries kept at most (default 1,000); the least recently used go first. */
  maxEntries?: number;
  /** UTF-8 bytes of the entries kept at most, all together (default 64 MiB). */
  maxBytes?: number;
}

interface MemoryEntry {
  value: string;
  bytes: number;
  expiresAt: number;
}

/**
 * The default store: one process's memory, least recently used first out, bounded by entries and by bytes, since
 * what it holds is whatever callers asked.
 */
export class MemoryCacheStore implements ResponseCacheStore {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(options: MemoryCacheOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1_000);
    this.#maxBytes = Math.max(1, options.maxBytes ?? 64 * 1024 * 1024);
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= Date.now()) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
    this.#entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const bytes = utf8Length(key) + utf8Length(value);
    this.#remove(key);
    if (bytes > this.#maxBytes || ttlMs <= 0) return;
    this.#entries.set(key, { value, bytes, expiresAt: Date.now() + ttlMs });
    this.#bytes += bytes;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#remove(oldest);
    }
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
