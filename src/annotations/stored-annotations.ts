import type { Queries, StorageEngine } from '../storage/engine.ts';
import { anyOf, atMost } from '../storage/engine-sql.ts';
import type { Builder } from '../storage/kysely.ts';
import { column, defineSchema, type TableSpec, withColumn } from '../storage/schema.ts';
import { writeRows } from '../storage/write-rows.ts';
import type { AnnotationTarget, NormalizedAnnotationQuery, StoredAnnotation } from './annotation.ts';
import { type AnnotationStore, pageOf } from './annotation-store.ts';

/** Ids and times are ordered text (`COLLATE "C"` in PostgreSQL): pages and cursors follow one byte order. */
const ANNOTATIONS: TableSpec = {
  name: 'annotations',
  columns: {
    id: column.key({ notNull: true }),
    created_at: column.key({ notNull: true }),
    call_id: column.text(),
    experiment_id: column.text(),
    cell_id: column.text(),
    agent_id: column.text(),
    call_api_key_id: column.text(),
    key_path: column.text(),
    text: column.text(),
    metric_name: column.text(),
    metric_value: column.real(),
    author: column.text(),
  },
  primaryKey: ['id'],
  indexes: [
    withColumn('by_call', ['call_id', 'id']),
    withColumn('by_agent', ['agent_id', 'id']),
    withColumn('by_experiment', ['experiment_id', 'id']),
  ],
};

export const ANNOTATIONS_SCHEMA = defineSchema({ name: 'annotations', version: 1, tables: [ANNOTATIONS] });

type Row = Record<
  | 'id'
  | 'created_at'
  | 'call_id'
  | 'experiment_id'
  | 'cell_id'
  | 'agent_id'
  | 'call_api_key_id'
  | 'key_path'
  | 'text'
  | 'metric_name'
  | 'metric_value'
  | 'author',
  string | number | null
>;

/** Annotations in a table of any engine, beside the call records (`openStores`); one implementation for each. */
export class StoredAnnotations implements AnnotationStore {
  readonly #engine: StorageEngine;

  constructor(engine: StorageEngine) {
    this.#engine = engine;
    engine.migrateNow?.(ANNOTATIONS_SCHEMA);
  }

  /** Creates or migrates the tables (PostgreSQL: on first use otherwise). */
  ready(): Promise<void> {
    return this.#engine.ready(ANNOTATIONS_SCHEMA);
  }

  /** One transaction: all rows or none (a duplicate id fails the batch). */
  async insert(rows: StoredAnnotation[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ready();
    const values = rows.map(rowOf);
    await this.#engine.transaction((tx: Queries) => writeRows(tx, ANNOTATIONS, values, 'error'));
  }

  /** Newest first, `limit + 1` rows so the page knows whether there is another; every value a parameter. */
  async list(query: NormalizedAnnotationQuery) {
    await this.ready();
    const { kind } = this.#engine;
    const { agent_ids, api_key_ids } = query.scope;
    const page = (db: Builder) => {
      let select = db.selectFrom('annotations').selectAll();
      if (agent_ids) select = select.where((eb) => anyOf(kind, eb, 'agent_id', [...agent_ids]));
      if (api_key_ids) select = select.where((eb) => anyOf(kind, eb, 'call_api_key_id', [...api_key_ids]));
      const equal = { agent_id: query.agent_id, call_id: query.call_id, experiment_id: query.experiment_id };
      for (const [name, value] of Object.entries({ ...equal, metric_name: query.metric }))
        if (value !== undefined) select = select.where(name, '=', value);
      if (query.since !== undefined) select = select.where('created_at', '>=', query.since);
      if (query.until !== undefined) select = select.where('created_at', '<', query.until);
      if (query.cursor !== undefined) select = select.where('id', '<', query.cursor);
      return select.orderBy('id', 'desc').limit(atMost(query.limit + 1));
    };
    const { rows } = await this.#engine.run<Row>(page);
    return pageOf(rows.map(annotationOf), query.limit);
  }
}

function rowOf(row: StoredAnnotation): Row {
  const target = row.target as Partial<Record<'call_id' | 'experiment_id' | 'cell_id', string>>;
  return {
    id: row.id,
    created_at: row.created_at,
    call_id: target.call_id ?? null,
    experiment_id: target.experiment_id ?? null,
    cell_id: target.cell_id ?? null,
    agent_id: row.agent_id,
    call_api_key_id: row.call_api_key_id,
    key_path: row.key_path,
    text: row.text,
    metric_name: row.metric?.name ?? null,
    metric_value: row.metric?.value ?? null,
    author: row.author,
  };
}

function annotationOf(row: Row): StoredAnnotation {
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
