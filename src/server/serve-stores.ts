import type { StorageEngine } from '../storage/engine.ts';
import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { openStores, type Stores, type StoresSource } from '../stores/open-stores.ts';
import { ApiKeyStore } from './api-keys.ts';
import { openDatabase } from './open-database.ts';
import { PostgresKeyStore } from './postgres-key-store.ts';

/** The stores of `serve`'s database: the gateway's (`openStores`) and the API keys. */
export interface ServeStores extends Stores {
  readonly keys: ApiKeyStore;
}

/**
 * Opens every store of `serve`'s database at once: the data directory's SQLite file (created for this user alone,
 * WAL; one connection for all), PostgreSQL (`--database`, shared by every replica; call `ready()` before listening,
 * so a bad URL stops the start), or memory. In PostgreSQL the keys have a pool of their own: every request looks its
 * key up, and a lookup must not queue behind summaries of the records. `close()` closes everything.
 */
export function openServeStores(source: StoresSource | StorageEngine): ServeStores {
  const opened =
    'engine' in source && source.engine === 'sqlite'
      ? new SqliteEngine(openDatabase(source.path), 'switchyard serve', true)
      : source;
  const stores = openStores(opened);
  const ownPool = 'engine' in source && source.engine === 'postgres' && typeof source.connection === 'string';
  const keys = ownPool ? new PostgresKeyStore(source.connection as string) : new ApiKeyStore(stores.engine);
  return {
    ...stores,
    keys,
    ready: async () => {
      await Promise.all([stores.ready(), keys.ready()]);
    },
    close: async () => {
      await keys.close();
      await stores.close();
    },
  };
}
