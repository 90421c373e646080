import type { SQLInputValue } from 'node:sqlite';
import { SqliteEngine } from '../../storage/sqlite-engine.ts';
import { StoredCalls } from '../stored-calls.ts';

/** Call records in a SQLite file through `node:sqlite`, answering the call-store queries with SQL (`StoredCalls`). */
export class SqliteSink extends StoredCalls {
  readonly path: string;

  /** `path` is a file (its directory is created) or `:memory:`. */
  constructor(path: string) {
    super(new SqliteEngine(path, 'SqliteSink'));
    this.path = path;
  }

  /** Runs any SQL on the database, for reports the store methods do not cover (`SELECT … FROM calls …`). */
  query(sql: string, ...params: SQLInputValue[]): Array<Record<string, SQLInputValue>> {
    return (this.engine as SqliteEngine).connection.prepare(sql).all(...params) as Array<Record<string, SQLInputValue>>;
  }

  override close(): void {
    (this.engine as SqliteEngine).closeNow();
  }
}
