import type { RootOperationNode } from 'kysely';
import { type Args, type Queries, type Query, type Result, type StorageEngine, treeOf } from './engine.ts';
import { loadKysely } from './kysely.ts';
import type { Context } from './memory-expression.ts';
import type { MemorySchema } from './memory-select.ts';
import { MemoryTable, type Row, type Undo } from './memory-table.ts';
import type { SchemaSpec } from './schema.ts';
import { TransactionLock } from './transaction-lock.ts';
import type { OnConflict } from './write-rows.ts';

export interface MemoryEngineOptions {
  /** Rows kept per table, by table name; past it the oldest written are forgotten (default: no bound). */
  capacity?: Readonly<Record<string, number>> | undefined;
}

type Statement = (context: Context, undo: Undo[]) => Result<Row>;

let interpreter: typeof import('./memory-query.ts') | undefined;

/** What running a query needs, loaded when one first runs: Kysely, and the interpreter of its trees. */
async function loadQueryLayer(): Promise<void> {
  await loadKysely();
  interpreter ??= await import('./memory-query.ts');
}

/** The memory engine's queries, and its writes without a query (`write`). */
export interface MemoryQueries extends Queries {
  write(table: string, rows: readonly Row[], conflict: OnConflict): Promise<number>;
}

/**
 * The in-process engine: tables in this process's memory, running the same queries as SQLite and PostgreSQL (the
 * operation trees the stores build, each made once into functions). No database, no file system, no `eval`: it runs
 * wherever JavaScript does. A statement is all or nothing, and so is a transaction (its changes are taken back when
 * it fails); queries run synchronously, one transaction at a time.
 */
export class MemoryEngine implements StorageEngine, MemoryQueries, MemorySchema {
  readonly kind = 'memory';
  readonly #tables = new Map<string, MemoryTable>();
  readonly #capacity: Readonly<Record<string, number>>;
  readonly #statements = new WeakMap<RootOperationNode, Statement>();
  readonly #lock = new TransactionLock();

  constructor(options: MemoryEngineOptions = {}) {
    this.#capacity = options.capacity ?? {};
  }

  table(name: string): MemoryTable | undefined {
    return this.#tables.get(name);
  }

  async run<Row>(query: Query<Row>, args?: Args): Promise<Result<Row>> {
    await loadQueryLayer();
    if (this.#lock.held) await this.#lock.idle();
    return this.runNow(query, args);
  }

  /** Runs a query at once, synchronously, once the query layer is loaded (`run` waits for it). */
  runNow<Row>(query: Query<Row>, args: Args = {}, undo: Undo[] = []): Result<Row> {
    const statement = this.#statement(treeOf(query, 'memory'));
    const done = undo.length;
    try {
      return statement({ args, rows: {} }, undo) as Result<Row>;
    } catch (error) {
      revert(undo, done);
      throw error;
    }
  }

  /**
   * Writes a table's rows as `writeRows` does, without a query: the in-process default writes a record per call,
   * and building or interpreting an insert for each would be work on every call (Kysely is not even loaded for it).
   */
  async write(table: string, rows: readonly Row[], conflict: OnConflict): Promise<number> {
    if (this.#lock.held) await this.#lock.idle();
    return this.writeNow(table, rows, conflict);
  }

  writeNow(table: string, rows: readonly Row[], conflict: OnConflict, undo: Undo[] = []): number {
    const target = this.#tables.get(table);
    if (!target) throw new Error(`The memory engine has no table "${table}".`);
    const done = undo.length;
    let changes = 0;
    try {
      for (const row of rows) if (target.write({ ...target.defaults, ...row }, conflict, undo)) changes += 1;
    } catch (error) {
      revert(undo, done);
      throw error;
    }
    return changes;
  }

  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T> {
    return this.#lock.hold(async () => {
      const undo: Undo[] = [];
      const tx: MemoryQueries = {
        kind: 'memory',
        run: async (query, args) => {
          await loadQueryLayer();
          return this.runNow(query, args, undo);
        },
        write: async (table, rows, conflict) => this.writeNow(table, rows, conflict, undo),
      };
      try {
        return await work(tx);
      } catch (error) {
        revert(undo, 0);
        throw error;
      }
    });
  }

  async ready(schema: SchemaSpec): Promise<void> {
    this.migrateNow(schema);
  }

  /** Makes the schema's tables that this engine does not have yet. */
  migrateNow(schema: SchemaSpec): void {
    for (const table of schema.tables)
      if (!this.#tables.has(table.name))
        this.#tables.set(table.name, new MemoryTable(table, this.#capacity[table.name]));
  }

  async close(): Promise<void> {}

  #statement(node: RootOperationNode): Statement {
    let statement = this.#statements.get(node);
    if (!statement) {
      if (!interpreter) throw new Error('The memory engine ran a query before it loaded its query layer (run waits).');
      const { compileSelect, compileWrite } = interpreter;
      if (node.kind === 'SelectQueryNode') {
        const select = compileSelect(node, this);
        statement = (context) => {
          const rows = select(context);
          return { rows, changes: rows.length };
        };
      } else statement = compileWrite(node, this);
      this.#statements.set(node, statement);
    }
    return statement;
  }
}

/** Takes back the changes recorded after the first `keep`, newest first. */
function revert(undo: Undo[], keep: number): void {
  while (undo.length > keep) undo.pop()!();
}
