import type { AnnotationTarget, NormalizedAnnotationQuery, StoredAnnotation } from './annotation.ts';

/** The annotation table's columns, in insert order, shared by the SQLite and PostgreSQL stores. */
export const ANNOTATION_COLUMNS = [
  'id',
  'created_at',
  'call_id',
  'experiment_id',
  'cell_id',
  'agent_id',
  'call_api_key_id',
  'key_path',
  'text',
  'metric_name',
  'metric_value',
  'author',
] as const;

export type AnnotationRow = Record<(typeof ANNOTATION_COLUMNS)[number], string | number | null>;

export function rowValues(row: StoredAnnotation): Array<string | number | null> {
  const target = row.target as Partial<Record<'call_id' | 'experiment_id' | 'cell_id', string>>;
  return [
    row.id,
    row.created_at,
    target.call_id ?? null,
    target.experiment_id ?? null,
    target.cell_id ?? null,
    row.agent_id,
    row.call_api_key_id,
    row.key_path,
    row.text,
    row.metric?.name ?? null,
    row.metric?.value ?? null,
    row.author,
  ];
}

export function annotationOfRow(row: AnnotationRow): StoredAnnotation {
  const text = (value: string | number | null) => (value === null ? null : String(value));
  const target: AnnotationTarget =
    row.call_id !== null
      ? { call_id: String(row.call_id) }
      : { experiment_id: String(row.experiment_id), cell_id: String(row.cell_id) };
  return {
    id: String(row.id),
    target,
    agent_id: text(row.agent_id),
    key_path: text(row.key_path),
    text: text(row.text),
    metric: row.metric_name === null ? null : { name: String(row.metric_name), value: Number(row.metric_value) },
    author: text(row.author),
    created_at: String(row.created_at),
    call_api_key_id: text(row.call_api_key_id),
  };
}

/** How an engine writes the n-th (1-based) parameter and "column is one of a list" (the list is one parameter). */
export interface Dialect {
  param(n: number): string;
  inList(column: string, n: number): string;
}

/**
 * A query's WHERE clause (every value a parameter: no caller text becomes SQL), newest first, `limit + 1` rows so
 * the store knows whether there is another page.
 */
export function selectAnnotations(
  table: string,
  query: NormalizedAnnotationQuery,
  dialect: Dialect,
): { sql: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (column: string, op: string, value: unknown) => {
    values.push(value);
    where.push(`${column} ${op} ${dialect.param(values.length)}`);
  };
  const addList = (column: string, list: readonly string[]) => {
    values.push(list);
    where.push(dialect.inList(column, values.length));
  };
  if (query.scope.agent_ids) addList('agent_id', query.scope.agent_ids);
  if (query.scope.api_key_ids) addList('call_api_key_id', query.scope.api_key_ids);
  if (query.agent_id !== undefined) add('agent_id', '=', query.agent_id);
  if (query.call_id !== undefined) add('call_id', '=', query.call_id);
  if (query.experiment_id !== undefined) add('experiment_id', '=', query.experiment_id);
  if (query.metric !== undefined) add('metric_name', '=', query.metric);
  if (query.since !== undefined) add('created_at', '>=', query.since);
  if (query.until !== undefined) add('created_at', '<', query.until);
  if (query.cursor !== undefined) add('id', '<', query.cursor);
  values.push(query.limit + 1);
  const sql =
    `SELECT ${ANNOTATION_COLUMNS.join(', ')} FROM ${table}` +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY id DESC LIMIT ${dialect.param(values.length)}`;
  return { sql, values };
}
