import { RuntimeUnsupportedError, runtimeName } from '../internal/node-builtin.ts';
import type { StorageEngine } from '../storage/engine.ts';
import type { StoresSource } from './open-stores.ts';

/**
 * The web build's: SQLite and PostgreSQL need Node.js (node:sqlite, sockets), so their engines are left out of a
 * Worker's or a page's bundle, and asking for one says so.
 */
export function openDatabase(source: Exclude<StoresSource, { engine: 'memory' }>): StorageEngine {
  throw new RuntimeUnsupportedError(
    `openStores({ engine: '${source.engine}' }) needs Node.js, Bun or Deno, which ${runtimeName()} is not: ` +
      "keep the stores in memory ({ engine: 'memory' }) or send records to a server.",
  );
}
