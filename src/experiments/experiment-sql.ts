import type { ExperimentCell, ExperimentHeader } from './experiment.ts';
import type { ExperimentListQuery } from './experiment-store.ts';

/**
 * What the SQLite and PostgreSQL experiment stores share: the statements (only table names and parameter marks
 * differ) and the rows. Each row keeps its object as JSON text (`body`), exactly as written; the columns beside it
 * are copies of the fields the statements filter and order on.
 */

/** The four tables: headers, versions, inputs, cells (the last three keyed by experiment id and their own id). */
export interface ExperimentTables {
  experiments: string;
  versions: string;
  inputs: string;
  cells: string;
}

/** How an engine writes the n-th (1-based) parameter and "column is one of a list" (the list is one parameter). */
export interface ExperimentDialect {
  param(n: number): string;
  inList(column: string, n: number): string;
}

export type SqlValue = string | number | null;

export interface BodyRow {
  body: string;
}

export const HEADER_COLUMNS = ['id', 'agent_id', 'author', 'created_at', 'body'] as const;
export const PART_COLUMNS = ['experiment_id', 'id', 'body'] as const;
/** `spent_usd` (its cost unless reused) and `held_usd` (its hold while in flight): a budget's sums, never a body. */
export const CELL_COLUMNS = [
  'experiment_id',
  'id',
  'key',
  'status',
  'updated_at',
  'body',
  'spent_usd',
  'held_usd',
] as const;

export function headerValues(header: ExperimentHeader): SqlValue[] {
  return [header.id, header.agent_id, header.author, header.created_at, JSON.stringify(header)];
}

export function partValues(experimentId: string, part: { id: string }): SqlValue[] {
  return [experimentId, part.id, JSON.stringify(part)];
}

export function cellValues(experimentId: string, cell: ExperimentCell): SqlValue[] {
  const spent = cell.reused_from === null ? (cell.cost_usd ?? 0) : 0;
  return [
    experimentId,
    cell.id,
    cell.key,
    cell.status,
    cell.updated_at,
    JSON.stringify(cell),
    spent,
    cell.held_usd ?? 0,
  ];
}

export function parseBody<T>(row: BodyRow): T {
  return JSON.parse(String(row.body)) as T;
}

function marks(dialect: ExperimentDialect, count: number, from = 1): string {
  return Array.from({ length: count }, (_, index) => dialect.param(from + index)).join(', ');
}

export function insertHeaderSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  return `INSERT INTO ${tables.experiments} (${HEADER_COLUMNS.join(', ')}) VALUES (${marks(dialect, 5)})`;
}

/** One INSERT of `count` versions or inputs: all rows or none. */
export function insertPartsSql(table: string, count: number, dialect: ExperimentDialect): string {
  const width = PART_COLUMNS.length;
  const tuples = Array.from({ length: count }, (_, row) => `(${marks(dialect, width, row * width + 1)})`);
  return `INSERT INTO ${table} (${PART_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
}

/** Parameters: the cell's values (`cellValues`), then for a claim `staleBefore`. */
function upsertCellSql(tables: ExperimentTables, dialect: ExperimentDialect, claim: boolean): string {
  const t = tables.cells;
  const set = CELL_COLUMNS.slice(2)
    .map((column) => `${column} = excluded.${column}`)
    .join(', ');
  // The claim rule of `claimable` (memory store), checked by the same statement that writes: no gap between them.
  const stale = dialect.param(CELL_COLUMNS.length + 1);
  const where = claim
    ? ` WHERE ${t}.status <> 'completed' AND (${t}.status <> 'running' OR ${t}.updated_at < ${stale})`
    : '';
  return (
    `INSERT INTO ${t} (${CELL_COLUMNS.join(', ')}) VALUES (${marks(dialect, CELL_COLUMNS.length)}) ` +
    `ON CONFLICT (experiment_id, id) DO UPDATE SET ${set}${where}`
  );
}

export function putCellSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  return upsertCellSql(tables, dialect, false);
}

export function claimCellSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  return upsertCellSql(tables, dialect, true);
}

export function selectPartsSql(table: string, dialect: ExperimentDialect): string {
  return `SELECT body FROM ${table} WHERE experiment_id = ${dialect.param(1)} ORDER BY id`;
}

/** Parameters: the experiment, the key. The first completed cell (by id) of this experiment with this key. */
export function completedCellSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  return (
    `SELECT body FROM ${tables.cells} WHERE experiment_id = ${dialect.param(1)} AND key = ${dialect.param(2)} ` +
    `AND status = 'completed' ORDER BY id LIMIT 1`
  );
}

/** Parameters: the experiment, staleBefore. What its cells spent, and the holds of its cells in flight. */
export function spendingSql(tables: ExperimentTables, dialect: ExperimentDialect): { spent: string; holds: string } {
  const [experiment, stale] = [dialect.param(1), dialect.param(2)];
  return {
    spent: `SELECT coalesce(sum(spent_usd), 0) AS spent FROM ${tables.cells} WHERE experiment_id = ${experiment}`,
    holds:
      `SELECT id, held_usd FROM ${tables.cells} WHERE experiment_id = ${experiment} AND status = 'running' ` +
      `AND updated_at >= ${stale} AND held_usd > 0`,
  };
}

/** Parameters: the experiment, staleBefore. Its cells being called now (on any replica). */
export function runningSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  return (
    `SELECT count(*) AS running FROM ${tables.cells} WHERE experiment_id = ${dialect.param(1)} ` +
    `AND status = 'running' AND updated_at >= ${dialect.param(2)}`
  );
}

/** Parameters: the experiment, twice. How many versions and inputs it holds. */
export function countsSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  return (
    `SELECT (SELECT count(*) FROM ${tables.versions} WHERE experiment_id = ${dialect.param(1)}) AS versions, ` +
    `(SELECT count(*) FROM ${tables.inputs} WHERE experiment_id = ${dialect.param(2)}) AS inputs`
  );
}

/** Parameters: key, agent id, author, the experiment left out. */
export function findCompletedSql(tables: ExperimentTables, dialect: ExperimentDialect): string {
  const p = (n: number) => dialect.param(n);
  return (
    `SELECT c.body FROM ${tables.cells} c JOIN ${tables.experiments} e ON e.id = c.experiment_id ` +
    `WHERE c.key = ${p(1)} AND c.status = 'completed' AND e.agent_id = ${p(2)} ` +
    // IS NOT DISTINCT FROM: a `null` author matches only `null` (in-process experiments).
    `AND e.author IS NOT DISTINCT FROM ${p(3)} AND c.experiment_id <> ${p(4)} ` +
    'ORDER BY c.updated_at DESC LIMIT 1'
  );
}

/** A list query compiled (as `matchesExperimentQuery`), newest first, `limit + 1` rows; list values stay arrays. */
export function selectExperiments(
  tables: ExperimentTables,
  query: ExperimentListQuery,
  dialect: ExperimentDialect,
): { sql: string; values: Array<SqlValue | string[]> } {
  const where: string[] = [];
  const values: Array<SqlValue | string[]> = [];
  const add = (value: SqlValue | string[]) => values.push(value);
  const { scope } = query;
  if (scope.agent_ids) {
    add([...scope.agent_ids]);
    where.push(dialect.inList('agent_id', values.length));
  }
  if (scope.api_key_ids) {
    add([...scope.api_key_ids]);
    where.push(`author IS NOT NULL AND ${dialect.inList('author', values.length)}`);
  }
  if (query.agent_id !== undefined) {
    add(query.agent_id);
    where.push(`agent_id = ${dialect.param(values.length)}`);
  }
  if (query.cursor !== undefined) {
    add(query.cursor);
    where.push(`id < ${dialect.param(values.length)}`);
  }
  add(query.limit + 1);
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return {
    sql: `SELECT body FROM ${tables.experiments}${filter} ORDER BY id DESC LIMIT ${dialect.param(values.length)}`,
    values,
  };
}
