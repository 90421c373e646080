import type { StorageEngine } from '../storage/engine.ts';
import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { openStores, type Stores, type StoresSource } from '../stores/open-stores.ts';
import { ApiKeyStore } from './api-keys.ts';
import { openDatabase } from './open-database.ts';

/** The stores of `serve`'s database: the gateway's (`openStores`) and the API keys, on one engine. */
export interface ServeStores extends Stores {
  readonly keys: ApiKeyStore;
}

/**
 * Opens every store of `serve`'s database at once: the data directory's SQLite file (created for this user alone,
 * WAL), PostgreSQL (`--database`, shared by every replica; call `ready()` before listening, so a bad URL stops the
 * start), or memory. One connection or pool for all of them; `close()` closes it.
 */
export function openServeStores(source: StoresSource | StorageEngine): ServeStores {
  const opened =
    'engine' in source && source.engine === 'sqlite'
      ? new SqliteEngine(openDatabase(source.path), 'switchyard serve', true)
      : source;
  const stores = openStores(opened);
  const keys = new ApiKeyStore(stores.engine);
  return {
    ...stores,
    keys,
    ready: async () => {
      await Promise.all([stores.ready(), keys.ready()]);
    },
  };
}
