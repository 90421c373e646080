/**
 * One declaration per stored table: its columns, keys and indexes. Each engine's DDL and migrations are made from
 * it (`ddl.ts`, `migrate.ts`), the in-memory engine keeps its rows by it, and the query builder's types come from it:
 * a table is written down once.
 */

export type EngineKind = 'sqlite' | 'postgres' | 'memory';
/** The SQL engines: where a table has DDL, and a value may need an engine's own expression. */
export type SqlEngineKind = Exclude<EngineKind, 'memory'>;

/**
 * `key`: text that is ordered or paged on (ids, ISO times), `COLLATE "C"` in PostgreSQL so every engine orders it by
 * the same bytes. `json`: a value kept as JSON text.
 */
export type ColumnType = 'text' | 'key' | 'integer' | 'real' | 'boolean' | 'bytes' | 'json';

export interface ColumnSpec {
  type: ColumnType;
  notNull?: boolean;
  /** A literal default: what rows written before the column existed hold. */
  default?: string | number;
  /**
   * When a table made by an earlier version gains this column: what fills it in each SQL engine (an expression of the
   * row's other columns, and which rows).
   */
  backfill?: Record<SqlEngineKind, { set: string; where?: string }>;
}

export interface IndexSpec {
  /** Its name after the table's (`calls` + `with_agent_id`: `calls_with_agent_id`). */
  suffix: string;
  columns: readonly string[];
  /** A partial index: SQL both engines read alike. */
  where?: string;
}

export interface TableSpec {
  /** The table's name; PostgreSQL's carries `switchyard_` before it (a database shared with other applications). */
  name: string;
  columns: Readonly<Record<string, ColumnSpec>>;
  primaryKey: readonly string[];
  /** Columns that are unique on their own (besides the primary key). */
  unique?: readonly string[];
  indexes: readonly IndexSpec[];
  /** Index suffixes of earlier versions, dropped when found. */
  retiredIndexes?: readonly string[];
}

/**
 * Tables that are migrated together. `version` counts the changes of their declarations: PostgreSQL records it (in
 * `switchyard_migrations`, under `name`), so replicas starting on an up-to-date database read no catalog.
 */
export interface SchemaSpec {
  name: string;
  version: number;
  tables: readonly TableSpec[];
}

/** Every declared table's name: the query builder gives these, and only these, PostgreSQL's prefix. */
export const declaredTables = new Set<string>();

/** A schema, its tables recorded as declared. */
export function defineSchema<const Spec extends SchemaSpec>(spec: Spec): Spec {
  for (const table of spec.tables) declaredTables.add(table.name);
  return spec;
}

/** The name a table has in an engine. */
export function tableName(kind: EngineKind, table: string): string {
  return kind === 'postgres' ? `switchyard_${table}` : table;
}

/** Helpers that keep declarations short. */
export const column = {
  text: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'text', ...spec }),
  key: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'key', ...spec }),
  integer: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'integer', ...spec }),
  real: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'real', ...spec }),
  boolean: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'boolean', ...spec }),
  bytes: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'bytes', ...spec }),
  json: (spec: Omit<ColumnSpec, 'type'> = {}): ColumnSpec => ({ type: 'json', ...spec }),
};

/** A partial index on `[column, ...then]` of the rows that have `column`. */
export function withColumn(suffix: string, columns: readonly [string, ...string[]]): IndexSpec {
  return { suffix, columns, where: `${columns[0]} IS NOT NULL` };
}
