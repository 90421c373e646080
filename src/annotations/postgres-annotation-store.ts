import { migrate, postgresError } from '../internal/postgres-migrations.ts';
import type { PostgresPool, PostgresResult } from '../internal/postgres-pool.ts';
import type { NormalizedAnnotationQuery, StoredAnnotation } from './annotation.ts';
import {
  ANNOTATION_COLUMNS,
  type AnnotationRow,
  annotationOfRow,
  rowValues,
  selectAnnotations,
} from './annotation-sql.ts';
import { type AnnotationStore, pageOf } from './annotation-store.ts';

/** Ids and times are `COLLATE "C"`: pages and cursors follow the same byte order as SQLite and memory. */
const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
CREATE TABLE switchyard_annotations (
  id TEXT COLLATE "C" PRIMARY KEY,
  created_at TEXT COLLATE "C" NOT NULL,
  call_id TEXT,
  experiment_id TEXT,
  cell_id TEXT,
  agent_id TEXT,
  call_api_key_id TEXT,
  key_path TEXT,
  text TEXT,
  metric_name TEXT,
  metric_value DOUBLE PRECISION,
  author TEXT
);
CREATE INDEX switchyard_annotations_by_call ON switchyard_annotations (call_id, id) WHERE call_id IS NOT NULL;
CREATE INDEX switchyard_annotations_by_agent ON switchyard_annotations (agent_id, id) WHERE agent_id IS NOT NULL;
CREATE INDEX switchyard_annotations_by_experiment ON switchyard_annotations (experiment_id, id)
  WHERE experiment_id IS NOT NULL;`,
  },
];

/** Annotations in `switchyard_annotations`, on `PostgresSink`'s pool; the table is made on first use. */
export class PostgresAnnotationStore implements AnnotationStore {
  readonly #pool: PostgresPool;
  #ready: Promise<void> | undefined;

  /** A `pg` Pool (`PostgresSink` hands over its own). */
  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  #migrated(): Promise<void> {
    this.#ready ??= migrate(this.#pool, 'annotations', MIGRATIONS).catch((error: unknown) => {
      this.#ready = undefined;
      throw postgresError(error);
    });
    return this.#ready;
  }

  async insert(rows: StoredAnnotation[]): Promise<void> {
    if (rows.length === 0) return;
    await this.#migrated();
    const width = ANNOTATION_COLUMNS.length;
    const tuples = rows.map(
      (_, row) => `(${ANNOTATION_COLUMNS.map((__, column) => `$${row * width + column + 1}`).join(', ')})`,
    );
    const text = `INSERT INTO switchyard_annotations (${ANNOTATION_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
    try {
      // One statement: all rows or none.
      await this.#pool.query(text, rows.flatMap(rowValues));
    } catch (error) {
      throw postgresError(error);
    }
  }

  async list(query: NormalizedAnnotationQuery) {
    await this.#migrated();
    const { sql, values } = selectAnnotations('switchyard_annotations', query, {
      param: (n) => `$${n}`,
      inList: (column, n) => `${column} = ANY($${n}::text[])`,
    });
    try {
      const { rows } = (await this.#pool.query(sql, values)) as PostgresResult<AnnotationRow>;
      return pageOf(rows.map(annotationOfRow), query.limit);
    } catch (error) {
      throw postgresError(error);
    }
  }
}
