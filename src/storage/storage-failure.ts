import { StorageUnavailableError } from '../errors.ts';

/**
 * SQLite result codes (the low byte of the extended code) of the database failing as a whole: busy, locked, out of
 * memory, read-only, I/O error, corrupt, full, cannot open, not a database.
 */
const SQLITE_STORAGE_ERRORS = new Set([5, 6, 7, 8, 10, 11, 13, 14, 26]);

/**
 * Whether a write failed because the store cannot be written at all (PostgreSQL unreachable, SQLite's disk full or
 * locked), not because of the rows: writing the rows one by one cannot help.
 */
export function isStorageFailure(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true;
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && SQLITE_STORAGE_ERRORS.has(code & 0xff);
}
