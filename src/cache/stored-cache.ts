import { prepare, type StorageEngine } from '../storage/engine.ts';
import { atMost } from '../storage/engine-sql.ts';
import { column, defineSchema } from '../storage/schema.ts';
import { writeRows } from '../storage/write-rows.ts';
import type { ResponseCacheStore } from './cache-store.ts';

export const CACHE_SCHEMA = defineSchema({
  name: 'response_cache',
  version: 1,
  tables: [
    {
      name: 'response_cache',
      columns: {
        key: column.text({ notNull: true }),
        value: column.text({ notNull: true }),
        expires_at: column.integer({ notNull: true }),
      },
      primaryKey: ['key'],
      indexes: [{ suffix: 'by_expiry', columns: ['expires_at'] }],
    },
  ],
});
const [CACHE] = CACHE_SCHEMA.tables;

const live = prepare<{ value: string }>((db, arg) =>
  db.selectFrom('response_cache').select('value').where('key', '=', arg('key')).where('expires_at', '>', arg('now')),
);
/** The expired entries, and those past the most kept (the closest to expiring go first). */
const prune = prepare((db, arg) =>
  db
    .deleteFrom('response_cache')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', arg('now')),
        eb(
          'key',
          'in',
          eb
            .selectFrom('response_cache')
            .select('key')
            .orderBy('expires_at', 'desc')
            .limit(atMost(Number.MAX_SAFE_INTEGER))
            .offset(arg('kept')),
        ),
      ]),
    ),
);

/** Writes between two prunes of expired and surplus rows: a prune is one indexed DELETE, not one per write. */
const PRUNE_EVERY = 64;

/**
 * The response cache in a table of any engine (a SQLite file outlives restarts of one process and is shared by the
 * processes on one disk; PostgreSQL, by every replica). Bounded by `maxEntries`: past it, the entries closest to
 * expiring go first.
 */
export class StoredCache implements ResponseCacheStore {
  readonly #engine: StorageEngine;
  readonly #maxEntries: number;
  #writes = 0;

  constructor(engine: StorageEngine, options: { maxEntries?: number | undefined } = {}) {
    this.#engine = engine;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    engine.migrateNow?.(CACHE_SCHEMA);
  }

  ready(): Promise<void> {
    return this.#engine.ready(CACHE_SCHEMA);
  }

  async get(key: string): Promise<string | undefined> {
    await this.ready();
    return (await this.#engine.run(live, { key, now: Date.now() })).rows[0]?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    await this.ready();
    await writeRows(this.#engine, CACHE!, [{ key, value, expires_at: Date.now() + ttlMs }], 'replace');
    this.#writes += 1;
    if (this.#writes % PRUNE_EVERY === 1) await this.prune();
  }

  /** Drops the expired entries and those past `maxEntries`. */
  async prune(): Promise<void> {
    await this.ready();
    await this.#engine.run(prune, { now: Date.now(), kept: this.#maxEntries });
  }

  close(): Promise<void> | void {
    return this.#engine.close();
  }
}
