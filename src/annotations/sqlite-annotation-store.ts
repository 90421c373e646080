import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { NormalizedAnnotationQuery, StoredAnnotation } from './annotation.ts';
import {
  ANNOTATION_COLUMNS,
  type AnnotationRow,
  annotationOfRow,
  rowValues,
  selectAnnotations,
} from './annotation-sql.ts';
import { type AnnotationStore, pageOf } from './annotation-store.ts';

const TABLE = `
CREATE TABLE IF NOT EXISTS annotations (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  call_id TEXT,
  experiment_id TEXT,
  cell_id TEXT,
  agent_id TEXT,
  call_api_key_id TEXT,
  key_path TEXT,
  text TEXT,
  metric_name TEXT,
  metric_value REAL,
  author TEXT
);
CREATE INDEX IF NOT EXISTS annotations_by_call ON annotations (call_id, id) WHERE call_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS annotations_by_agent ON annotations (agent_id, id) WHERE agent_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS annotations_by_experiment ON annotations (experiment_id, id)
  WHERE experiment_id IS NOT NULL;
`;

/**
 * Annotations in the `annotations` table of the records' SQLite file, on `SqliteSink`'s connection (node:sqlite is
 * synchronous, so a record batch and an insert never interleave).
 */
export class SqliteAnnotationStore implements AnnotationStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#db.exec(TABLE);
  }

  async insert(rows: StoredAnnotation[]): Promise<void> {
    const marks = ANNOTATION_COLUMNS.map(() => '?').join(', ');
    const insert = this.#db.prepare(`INSERT INTO annotations (${ANNOTATION_COLUMNS.join(', ')}) VALUES (${marks})`);
    this.#db.exec('BEGIN');
    try {
      for (const row of rows) insert.run(...rowValues(row));
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  async list(query: NormalizedAnnotationQuery) {
    const { sql, values } = selectAnnotations('annotations', query, {
      param: () => '?',
      // A list is bound as JSON text and read back with json_each: one parameter, however long.
      inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
    });
    const bound = values.map((value) => (Array.isArray(value) ? JSON.stringify(value) : value)) as SQLInputValue[];
    const rows = this.#db.prepare(sql).all(...bound) as unknown as AnnotationRow[];
    return pageOf(rows.map(annotationOfRow), query.limit);
  }
}
