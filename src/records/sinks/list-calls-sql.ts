import type { NormalizedListQuery } from '../call-store-queries.ts';

/**
 * `list`'s first statement, the same for SQLite and PostgreSQL: the rows of a page (one beyond `limit`) with the
 * size of each record in bytes, never the record. `octet_length` reads a value's stored length, not its text, in
 * both engines, and every filter is a column (a key's calls by `api_key_id`, indexed): a page of large records is
 * chosen without reading one of them.
 */
export interface ListStatement {
  sql: string;
  values: unknown[];
}

export function listCallsSql(query: NormalizedListQuery, engine: 'sqlite' | 'postgres'): ListStatement {
  const table = engine === 'sqlite' ? 'calls' : 'switchyard_calls';
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return engine === 'sqlite' ? '?' : `$${values.length}`;
  };
  const where: string[] = [];
  for (const column of ['agent_id', 'dialect', 'trace_id', 'workflow_name'] as const) {
    const value = query[column];
    if (value !== undefined) where.push(`${column} = ${param(value)}`);
  }
  if (query.api_key_ids !== undefined)
    where.push(
      engine === 'sqlite'
        ? `api_key_id IN (SELECT value FROM json_each(${param(JSON.stringify(query.api_key_ids))}))`
        : `api_key_id = ANY(${param(query.api_key_ids)}::text[])`,
    );
  if (query.since !== undefined) where.push(`created_at >= ${param(query.since)}`);
  if (query.until !== undefined) where.push(`created_at < ${param(query.until)}`);
  if (query.after !== undefined) {
    const { created_at, id } = query.after;
    where.push(
      engine === 'sqlite'
        ? `(created_at < ${param(created_at)} OR (created_at = ${param(created_at)} AND id < ${param(id)}))`
        : `(created_at, id) < (${param(created_at)}, ${param(id)})`,
    );
  }
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const limit = param(query.limit + 1);
  return {
    sql:
      `SELECT id, created_at, octet_length(record) AS bytes FROM ${table}${filter} ` +
      `ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    values,
  };
}
