import type { ColumnDefinitionBuilder, Compilable } from 'kysely';
import { builderFor, kysely } from './kysely.ts';
import { type ColumnSpec, type ColumnType, type SqlEngineKind, type TableSpec, tableName } from './schema.ts';

/**
 * The SQL that makes a declared table, or brings one an earlier version made up to date: what `migrate.ts` runs in
 * each SQL engine. The plan is the same for both; only the column types and a few statements differ.
 */

/** What a database holds of a table: its columns (with whether each refuses NULL). */
export interface ExistingTable {
  columns: ReadonlyMap<string, { notNull: boolean }>;
}

const TYPES: Record<ColumnType, Record<SqlEngineKind, string>> = {
  text: { sqlite: 'text', postgres: 'text' },
  key: { sqlite: 'text', postgres: 'text' },
  integer: { sqlite: 'integer', postgres: 'bigint' },
  real: { sqlite: 'real', postgres: 'double precision' },
  boolean: { sqlite: 'integer', postgres: 'boolean' },
  bytes: { sqlite: 'blob', postgres: 'bytea' },
  json: { sqlite: 'text', postgres: 'text' },
};

/** The statements, in order; none when the table is as declared. */
export function migrationOf(kind: SqlEngineKind, table: TableSpec, existing: ExistingTable | undefined): string[] {
  if (!existing) return [createTable(kind, table), ...createIndexes(kind, table)];
  const statements = (table.retiredIndexes ?? []).map(
    (suffix) => `DROP INDEX IF EXISTS ${tableName(kind, table.name)}_${suffix}`,
  );
  const missing = Object.keys(table.columns).filter((name) => !existing.columns.has(name));
  // A column now nullable that refused NULL (the first calls table's cost_usd: an unknown price stored as $0).
  const relaxed = [...existing.columns].filter(
    ([name, { notNull }]) => notNull && !table.columns[name]?.notNull && !table.primaryKey.includes(name),
  );
  if (relaxed.length > 0 && kind === 'sqlite') statements.push(...rebuild(table, existing));
  else {
    const physical = tableName(kind, table.name);
    for (const [name] of relaxed) statements.push(`ALTER TABLE ${physical} ALTER COLUMN ${name} DROP NOT NULL`);
    for (const name of missing) statements.push(addColumn(kind, table, name));
  }
  for (const name of missing) statements.push(...backfill(kind, table, name));
  return [...statements, ...createIndexes(kind, table)];
}

function createTable(kind: SqlEngineKind, table: TableSpec): string {
  const db = builderFor(kind);
  let create = db.schema.createTable(table.name).ifNotExists();
  const [single, ...rest] = table.primaryKey;
  for (const [name, spec] of Object.entries(table.columns))
    create = create.addColumn(name, typeOf(kind, spec), (built) => {
      const column = definition(kind, spec, built);
      const unique = table.unique?.includes(name) ? column.unique() : column;
      return rest.length === 0 && name === single ? unique.primaryKey() : unique;
    });
  if (rest.length > 0)
    create = create.addPrimaryKeyConstraint(`${tableName(kind, table.name)}_pkey`, [...table.primaryKey] as never[]);
  return sqlOf(create);
}

function addColumn(kind: SqlEngineKind, table: TableSpec, name: string): string {
  const spec = table.columns[name]!;
  const db = builderFor(kind);
  return sqlOf(
    db.schema.alterTable(table.name).addColumn(name, typeOf(kind, spec), (built) => definition(kind, spec, built)),
  );
}

function typeOf(kind: SqlEngineKind, spec: ColumnSpec) {
  return kysely().sql.raw(TYPES[spec.type][kind]);
}

function definition(kind: SqlEngineKind, spec: ColumnSpec, built: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
  let column = built;
  if (spec.type === 'key' && kind === 'postgres') column = column.modifyFront(kysely().sql`collate "C"`);
  if (spec.notNull) column = column.notNull();
  return spec.default === undefined ? column : column.defaultTo(spec.default);
}

function createIndexes(kind: SqlEngineKind, table: TableSpec): string[] {
  const db = builderFor(kind);
  return table.indexes.map((index) => {
    const create = db.schema
      .createIndex(`${tableName(kind, table.name)}_${index.suffix}`)
      .ifNotExists()
      .on(table.name)
      .columns([...index.columns]);
    return sqlOf(index.where ? create.where(kysely().sql.raw<boolean>(index.where)) : create);
  });
}

function backfill(kind: SqlEngineKind, table: TableSpec, name: string): string[] {
  const fill = table.columns[name]!.backfill?.[kind];
  if (!fill) return [];
  const where = fill.where ? ` WHERE ${fill.where}` : '';
  return [`UPDATE ${tableName(kind, table.name)} SET ${name} = ${fill.set}${where}`];
}

/** SQLite cannot drop a NOT NULL: the table is made again as declared, with the rows of the columns both have. */
function rebuild(table: TableSpec, existing: ExistingTable): string[] {
  const kept = Object.keys(table.columns)
    .filter((name) => existing.columns.has(name))
    .join(', ');
  const before = `${table.name}_before_migration`;
  return [
    `ALTER TABLE ${table.name} RENAME TO ${before}`,
    createTable('sqlite', table),
    `INSERT INTO ${table.name} (${kept}) SELECT ${kept} FROM ${before}`,
    `DROP TABLE ${before}`,
  ];
}

function sqlOf(query: Compilable): string {
  const { sql, parameters } = query.compile();
  if (parameters.length > 0) throw new Error(`DDL takes no parameters: ${sql}`);
  return sql;
}
