import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { StoredCache } from './stored-cache.ts';

/** The response cache in a SQLite file (`StoredCache`): it outlives restarts of one process. */
export class SqliteCacheStore extends StoredCache {
  readonly #engine: SqliteEngine;

  /** `path` is a file (its directory is created) or `:memory:`. */
  constructor(path: string, options: { maxEntries?: number } = {}) {
    const engine = new SqliteEngine(path, 'SqliteCacheStore');
    super(engine, options);
    this.#engine = engine;
  }

  override close(): void {
    this.#engine.closeNow();
  }
}
