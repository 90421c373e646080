import type { StorageEngine } from '../storage/engine.ts';
import { PostgresEngine } from '../storage/postgres-engine.ts';
import { SqliteEngine } from '../storage/sqlite-engine.ts';
import type { StoresSource } from './open-stores.ts';

/** A database `openStores` opens on disk or over the network; the web build has neither (open-database.web.ts). */
export function openDatabase(source: Exclude<StoresSource, { engine: 'memory' }>): StorageEngine {
  if (source.engine === 'sqlite') return new SqliteEngine(source.path, 'openStores');
  return new PostgresEngine(source.connection);
}
