import type { Queries, RunOptions } from './engine.ts';
import { type Prepared, prepare } from './engine.ts';
import type { MemoryQueries } from './memory-engine.ts';
import type { TableSpec } from './schema.ts';

/**
 * Rows written to a declared table, the statement made from its declaration: on a row whose key is taken, `error`
 * (the key's constraint fails), `ignore` (the stored row stays) or `replace` (the stored row takes the new values).
 * PostgreSQL gets one statement of many rows (a round trip per batch); SQLite one prepared statement per row (no
 * round trip, and the prepared statement reused); memory writes the rows by the same rules without a query.
 */
export type OnConflict = 'error' | 'ignore' | 'replace';

type Row = Readonly<Record<string, unknown>>;

const statements = new WeakMap<TableSpec, Map<string, Prepared>>();
/** PostgreSQL's statements of a batch's size kept per table and conflict (the sizes a record queue writes). */
const SIZES_KEPT = 16;

/** Writes the rows; resolves with how many were inserted or replaced. Callers wanting all or none use a transaction. */
export async function writeRows(
  on: Queries,
  table: TableSpec,
  rows: readonly Row[],
  conflict: OnConflict,
  options?: RunOptions,
): Promise<number> {
  if (rows.length === 0) return 0;
  if (on.kind === 'memory') return (on as MemoryQueries).write(table.name, rows, conflict);
  if (on.kind !== 'postgres') {
    const statement = insertOf(table, conflict, 1);
    let changes = 0;
    for (const row of rows) changes += (await on.run(statement, complete(table, row), options)).changes;
    return changes;
  }
  // One row per key: PostgreSQL refuses a statement that would update one row twice (the last one written wins).
  const unique = conflict === 'error' ? rows : [...new Map(rows.map((row) => [keyOf(table, row), row])).values()];
  if (unique.length === 1)
    return (await on.run(insertOf(table, conflict, 1), complete(table, unique[0]!), options)).changes;
  const args: Record<string, unknown> = {};
  unique.forEach((row, index) => {
    for (const column in table.columns)
      args[`${index}:${column}`] = row[column] ?? table.columns[column]!.default ?? null;
  });
  return (await on.run(insertOf(table, conflict, unique.length), args, options)).changes;
}

function insertOf(table: TableSpec, conflict: OnConflict, count: number): Prepared {
  let kept = statements.get(table);
  if (!kept) statements.set(table, (kept = new Map()));
  const id = `${conflict}:${count}`;
  let statement = kept.get(id);
  if (statement) {
    kept.delete(id);
  } else {
    statement = build(table, conflict, count);
    if (kept.size >= SIZES_KEPT) kept.delete(kept.keys().next().value!);
  }
  kept.set(id, statement);
  return statement;
}

function build(table: TableSpec, conflict: OnConflict, count: number): Prepared {
  const columns = Object.keys(table.columns);
  const others = columns.filter((column) => !table.primaryKey.includes(column));
  return prepare((db, arg) => {
    const named = (index: number) => (column: string) => (count === 1 ? column : `${index}:${column}`);
    const values = Array.from({ length: count }, (_, index) =>
      Object.fromEntries(columns.map((column) => [column, arg(named(index)(column))])),
    );
    const insert = db.insertInto(table.name).values(values);
    if (conflict === 'error') return insert;
    return insert.onConflict((on) => {
      const target = on.columns([...table.primaryKey]);
      if (conflict === 'ignore') return target.doNothing();
      return target.doUpdateSet(
        Object.fromEntries(
          others.map((column) => [column, (eb: { ref(name: string): unknown }) => eb.ref(`excluded.${column}`)]),
        ),
      );
    });
  });
}

/** The row with every column: one it does not give holds the column's default, or NULL. */
function complete(table: TableSpec, row: Row): Row {
  for (const column in table.columns)
    if (!(column in row))
      return Object.fromEntries(
        Object.entries(table.columns).map(([name, spec]) => [name, name in row ? row[name] : (spec.default ?? null)]),
      );
  return row;
}

function keyOf(table: TableSpec, row: Row): string {
  return JSON.stringify(table.primaryKey.map((column) => row[column]));
}
