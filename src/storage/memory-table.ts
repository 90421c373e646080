import type { TableSpec } from './schema.ts';

export type Row = Record<string, unknown>;

/** A change a statement or transaction made, and how to take it back. */
export type Undo = () => void;

/**
 * A table of the memory engine: rows in the order written, by primary key, with a hash on the first column of each
 * declared index (and of each unique column): an equality on it reads its rows only, as SQL's index would, so a
 * lookup among an experiment's 10,000 cells is not a scan. `capacity` keeps the newest rows (call records in
 * memory), forgetting the oldest written.
 */
export class MemoryTable {
  readonly spec: TableSpec;
  readonly #rows = new Map<string, Row>();
  /**
   * Hashes by the first column, and the first two, of each index (and by each unique column): the key of their
   * values, then the rows holding them. An experiment's running cells are found among its running cells alone.
   */
  readonly #indexes = new Map<string, { columns: readonly string[]; rows: Map<string, Set<Row>> }>();
  readonly #unique: readonly string[];
  readonly #capacity: number;
  /** Every column's value in a row that does not give it: its default, or NULL. */
  readonly defaults: Readonly<Row>;

  constructor(spec: TableSpec, capacity = Number.POSITIVE_INFINITY) {
    this.spec = spec;
    this.defaults = Object.fromEntries(
      Object.entries(spec.columns).map(([name, column]) => [name, column.default ?? null]),
    );
    this.#capacity = capacity;
    this.#unique = spec.unique ?? [];
    const prefixes = [
      spec.primaryKey,
      ...this.#unique.map((column) => [column]),
      ...spec.indexes.map((index) => index.columns),
    ].flatMap((columns) => [columns.slice(0, 1), ...(columns.length > 1 ? [columns.slice(0, 2)] : [])]);
    for (const columns of prefixes) this.#indexes.set(columns.join(','), { columns, rows: new Map() });
  }

  get size(): number {
    return this.#rows.size;
  }

  /** Every row, oldest written first. */
  rows(): IterableIterator<Row> {
    return this.#rows.values();
  }

  /** The row with this primary key, or `undefined`. */
  byKey(values: readonly unknown[]): Row | undefined {
    return this.#rows.get(keyOf(values));
  }

  /** The primary key of a row made of these values. */
  keyOfRow(row: Row): readonly unknown[] {
    return this.spec.primaryKey.map((column) => row[column]);
  }

  /** The hashes, each by the columns it is on: equalities on all of them read only their rows. */
  hashes(): IterableIterator<readonly string[]> {
    return [...this.#indexes.values()].map((index) => index.columns).values();
  }

  /** The rows holding `values` in a hash's columns (`hashes`), oldest written first; read them before writing. */
  withValues(columns: readonly string[], values: readonly unknown[]): ReadonlySet<Row> {
    return this.#indexes.get(columns.join(','))?.rows.get(keyOf(values)) ?? NONE;
  }

  /** The row that a new row would conflict with (same primary key, or the same value in a unique column). */
  conflicting(row: Row): Row | undefined {
    const same = this.#rows.get(keyOf(this.keyOfRow(row)));
    if (same) return same;
    for (const column of this.#unique) for (const other of this.withValues([column], [row[column]])) return other;
    return undefined;
  }

  /**
   * Writes a row: inserted, or on a conflict ignored or its values put in place of the stored row's (`writeRows`'
   * rules). Returns whether the table changed.
   */
  write(row: Row, conflict: 'error' | 'ignore' | 'replace', undo: Undo[]): boolean {
    const existing = conflict === 'error' ? undefined : this.conflicting(row);
    if (!existing) this.insert(row, undo);
    else if (conflict === 'ignore') return false;
    else this.update(existing, { ...existing, ...row }, undo);
    return true;
  }

  /** Adds a new row (checked: no conflict); past the capacity, the oldest goes. */
  insert(row: Row, undo: Undo[]): void {
    this.#check(row);
    if (this.conflicting(row)) throw new Error(`UNIQUE constraint failed: ${this.spec.name}`);
    const key = keyOf(this.keyOfRow(row));
    this.#rows.set(key, row);
    this.#index(row, 1);
    undo.push(() => this.#remove(key));
    while (this.#rows.size > this.#capacity) this.delete(this.#rows.values().next().value!, undo);
  }

  /** Replaces a stored row with `next` (its primary key may not change), in place in the order written. */
  update(row: Row, next: Row, undo: Undo[]): void {
    this.#check(next);
    const key = keyOf(this.keyOfRow(row));
    if (keyOf(this.keyOfRow(next)) !== key) throw new Error(`${this.spec.name}: a primary key cannot change.`);
    this.#index(row, -1);
    this.#rows.set(key, next);
    this.#index(next, 1);
    undo.push(() => {
      this.#index(next, -1);
      this.#rows.set(key, row);
      this.#index(row, 1);
    });
  }

  delete(row: Row, undo: Undo[]): void {
    const key = keyOf(this.keyOfRow(row));
    this.#remove(key);
    // Put back where it was not possible (a Map inserts at the end): order of writing matters only to capacity.
    undo.push(() => {
      this.#rows.set(key, row);
      this.#index(row, 1);
    });
  }

  #remove(key: string): void {
    const row = this.#rows.get(key);
    if (!row) return;
    this.#rows.delete(key);
    this.#index(row, -1);
  }

  #index(row: Row, change: 1 | -1): void {
    for (const { columns, rows } of this.#indexes.values()) {
      const value = columns.length === 1 ? valueKey(row[columns[0]!]) : keyOf(columns.map((column) => row[column]));
      let held = rows.get(value);
      if (change === 1) {
        if (!held) rows.set(value, (held = new Set()));
        held.add(row);
      } else if (held) {
        held.delete(row);
        if (held.size === 0) rows.delete(value);
      }
    }
  }

  /** SQL's NOT NULL, in SQLite's words. */
  #check(row: Row): void {
    for (const [column, spec] of Object.entries(this.spec.columns))
      if ((spec.notNull || this.spec.primaryKey.includes(column)) && (row[column] ?? null) === null)
        throw new Error(`NOT NULL constraint failed: ${this.spec.name}.${column}`);
  }
}

const NONE: ReadonlySet<Row> = new Set();

/** A value as a hash key: bytes by their content, other values by their type and text. */
export function valueKey(value: unknown): string {
  if (value instanceof Uint8Array)
    return `b${Array.from(value, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  if (value === null || value === undefined) return 'n';
  return `${typeof value === 'number' || typeof value === 'bigint' ? 'd' : 's'}${String(value)}`;
}

function keyOf(values: readonly unknown[]): string {
  return values.length === 1 ? valueKey(values[0]) : values.map(valueKey).join('\u0000');
}
