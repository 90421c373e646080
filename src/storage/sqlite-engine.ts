import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { loadSqlite } from '../internal/load-sqlite.ts';
import {
  type Args,
  compile,
  type Queries,
  type Query,
  type Result,
  returnsRows,
  type StorageEngine,
} from './engine.ts';
import { migrateSqlite } from './migrate.ts';
import { PERCENTILE_FUNCTION, type PercentileState, percentile, percentileStep } from './percentile.ts';
import type { SchemaSpec } from './schema.ts';
import { TransactionLock } from './transaction-lock.ts';

/** Statements kept prepared: every store's fixed queries, and the latest of the shapes callers choose. */
const STATEMENTS_KEPT = 256;
/**
 * How every connection to a database file is set up, here and where serve opens its file (`openDatabase`): WAL lets
 * readers run while a batch is written; NORMAL is durable across crashes of the process.
 */
export const FILE_PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;';

/**
 * SQLite through `node:sqlite`: one connection, synchronous. A query runs to its end when it is asked (an `await`
 * of it lets nothing else in between), a transaction holds the connection until it ends, and migrations run at once,
 * so a store made on a file is ready (or has thrown) when its constructor returns.
 */
export class SqliteEngine implements StorageEngine {
  readonly kind = 'sqlite';
  /** The file, or `:memory:`. */
  readonly path: string;
  /** The connection itself, for SQL the stores do not write (`SqliteSink.query`). */
  readonly connection: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #lock = new TransactionLock();
  readonly #migrated = new Set<string>();
  /** Whether closing the engine closes the connection: not one opened elsewhere, whose opener closes it. */
  readonly #owned: boolean;

  /**
   * A file (its directory made), `:memory:`, or a connection opened elsewhere: closed with the engine only when
   * `owned` (by default, one the engine opened).
   */
  constructor(file: string | DatabaseSync, who = 'SQLite storage', owned = typeof file === 'string') {
    this.#owned = owned;
    if (typeof file === 'string') {
      if (file !== ':memory:') makeDirectoryOf(file);
      this.connection = new (loadSqlite(who).DatabaseSync)(file);
      this.connection.exec(FILE_PRAGMAS);
    } else this.connection = file;
    this.path = typeof file === 'string' ? file : (this.connection.location() ?? ':memory:');
    // The accumulator is a JS object node:sqlite keeps between rows (its types allow only SQL values).
    this.connection.aggregate(PERCENTILE_FUNCTION, {
      start: () => ({ values: [], fraction: 0 }) as PercentileState as never,
      step: (state, value, fraction) => percentileStep(state as never, value, fraction) as never,
      result: (state) =>
        percentile((state as unknown as PercentileState).values, (state as unknown as PercentileState).fraction),
    });
  }

  async run<Row>(query: Query<Row>, args?: Args): Promise<Result<Row>> {
    if (this.#lock.held) await this.#lock.idle();
    return this.runNow(query, args);
  }

  /** Runs a query at once, synchronously: for constructors and the stores' synchronous paths. */
  runNow<Row>(query: Query<Row>, args?: Args): Result<Row> {
    const { sql, values, node } = compile(query, 'sqlite', args);
    const statement = this.#statement(sql);
    const bound = values.map(bindable);
    if (returnsRows(node)) {
      const rows = statement.all(...bound) as Row[];
      return { rows, changes: rows.length };
    }
    return { rows: [], changes: Number(statement.run(...bound).changes) };
  }

  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T> {
    const tx: Queries = { kind: 'sqlite', run: async (query, args) => this.runNow(query, args) };
    return this.#lock.hold(async () => {
      // The write lock from the start: another process's write commits before this reads, or waits for it.
      this.connection.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(tx);
        this.connection.exec('COMMIT');
        return result;
      } catch (error) {
        // SQLITE_FULL and I/O errors may have rolled the transaction back already.
        if (this.connection.isTransaction) this.connection.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async ready(schema: SchemaSpec): Promise<void> {
    this.migrateNow(schema);
  }

  /** Migrates at once (once per schema): what a store's constructor calls. */
  migrateNow(schema: SchemaSpec): void {
    if (this.#migrated.has(schema.name)) return;
    migrateSqlite(this.connection, schema);
    this.#migrated.add(schema.name);
  }

  async close(): Promise<void> {
    this.closeNow();
  }

  closeNow(): void {
    if (this.#owned && this.connection.isOpen) this.connection.close();
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement) {
      // Most recently used last: the first is the one to let go.
      this.#statements.delete(sql);
    } else {
      statement = this.connection.prepare(sql);
      if (this.#statements.size >= STATEMENTS_KEPT) this.#statements.delete(this.#statements.keys().next().value!);
    }
    this.#statements.set(sql, statement);
    return statement;
  }
}

/**
 * node:sqlite binds numbers, text, bytes and NULL: a boolean is stored as 1 or 0, as SQLite keeps them; a list is
 * bound as its JSON text, which the queries read with `json_each` (`anyOf`).
 */
function bindable(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) return JSON.stringify(value);
  return value as SQLInputValue;
}

/** The file's directory, made when missing (node:fs fetched here: the engines' modules import nothing of Node's). */
function makeDirectoryOf(file: string): void {
  const { dirname } = process.getBuiltinModule('node:path');
  process.getBuiltinModule('node:fs').mkdirSync(dirname(file), { recursive: true });
}
