import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { loadSqlite } from '../internal/load-sqlite.ts';
import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import type { ResponseCacheStore } from './cache-store.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'The SQLite response cache (SqliteCacheStore)');
const nodePath = lazyNodeBuiltin('node:path', 'The SQLite response cache (SqliteCacheStore)');

/** Writes between two prunes of expired and surplus rows: a prune is one indexed DELETE, not one per write. */
const PRUNE_EVERY = 64;

/**
 * The response cache in a SQLite file: it outlives restarts of one process (and is shared by processes on one
 * disk). Bounded by `maxEntries`: past it, the entries closest to expiring go first.
 */
export class SqliteCacheStore implements ResponseCacheStore {
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #prune: StatementSync;
  readonly #maxEntries: number;
  #writes = 0;

  /** `path` is a file (its directory is created) or `:memory:`. */
  constructor(path: string, options: { maxEntries?: number } = {}) {
    if (path !== ':memory:') nodeFs().mkdirSync(nodePath().dirname(path), { recursive: true });
    this.#db = new (loadSqlite('SqliteCacheStore').DatabaseSync)(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.#db.exec(`CREATE TABLE IF NOT EXISTS response_cache (
      key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS response_cache_by_expiry ON response_cache (expires_at);`);
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    this.#get = this.#db.prepare('SELECT value FROM response_cache WHERE key = ? AND expires_at > ?');
    this.#set = this.#db.prepare('INSERT OR REPLACE INTO response_cache (key, value, expires_at) VALUES (?, ?, ?)');
    this.#prune = this.#db.prepare(`DELETE FROM response_cache WHERE expires_at <= ? OR key IN (
      SELECT key FROM response_cache ORDER BY expires_at DESC LIMIT -1 OFFSET ?)`);
  }

  async get(key: string): Promise<string | undefined> {
    const row = this.#get.get(key, Date.now()) as { value: string } | undefined;
    return row?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    this.#set.run(key, value, Date.now() + ttlMs);
    this.#writes += 1;
    if (this.#writes % PRUNE_EVERY === 1) this.prune();
  }

  /** Drops the expired entries and those past `maxEntries`. */
  prune(): void {
    this.#prune.run(Date.now(), this.#maxEntries);
  }

  close(): void {
    this.#db.close();
  }
}
