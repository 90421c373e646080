import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { loadSqlite } from '../internal/load-sqlite.ts';
import { ensurePrivateFile } from '../internal/private-file.ts';
import { FILE_PRAGMAS } from '../storage/sqlite-engine.ts';

/**
 * The one SQLite file of a data directory: API keys, deployments and call records live in it, each in its own table.
 */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'switchyard.sqlite');
}

/**
 * Opens a connection to `path` (creating its directory). Each store opens its own connection to the shared file;
 * WAL mode lets them read while another writes, and `busy_timeout` covers a CLI writing while `serve` runs
 * (`FILE_PRAGMAS`).
 */
export function openDatabase(path: string): DatabaseSync {
  // Created for this user alone (SQLite gives its WAL files the same mode): keys' hashes, prompts, answers.
  if (path !== ':memory:') ensurePrivateFile(path);
  const db = new (loadSqlite('switchyard serve').DatabaseSync)(path);
  db.exec(FILE_PRAGMAS);
  return db;
}
