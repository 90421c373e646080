import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { ExperimentCell, ExperimentHeader, ExperimentInput, ExperimentVersion } from './experiment.ts';
import {
  type BodyRow,
  cellValues,
  claimCellSql,
  type ExperimentDialect,
  type ExperimentTables,
  findCompletedSql,
  headerValues,
  insertHeaderSql,
  insertPartsSql,
  parseBody,
  partValues,
  putCellSql,
  selectExperiments,
  selectPartsSql,
} from './experiment-sql.ts';
import { type ExperimentListQuery, type ExperimentStore, experimentPage } from './experiment-store.ts';

const TABLES: ExperimentTables = {
  experiments: 'experiments',
  versions: 'experiment_versions',
  inputs: 'experiment_inputs',
  cells: 'experiment_cells',
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS experiments (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  author TEXT,
  created_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS experiments_by_agent ON experiments (agent_id, id);
CREATE TABLE IF NOT EXISTS experiment_versions (
  experiment_id TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE TABLE IF NOT EXISTS experiment_inputs (
  experiment_id TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE TABLE IF NOT EXISTS experiment_cells (
  experiment_id TEXT NOT NULL,
  id TEXT NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE INDEX IF NOT EXISTS experiment_cells_by_key ON experiment_cells (key, updated_at) WHERE status = 'completed';
`;

const DIALECT: ExperimentDialect = {
  param: () => '?',
  // A list is bound as JSON text and read back with json_each: one parameter, however long.
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
};

/**
 * Experiments in the records' SQLite file, on `SqliteSink`'s connection. node:sqlite is synchronous: each method
 * runs to its end before another starts, and a claim is one upsert whose WHERE is the claim rule.
 */
export class SqliteExperimentStore implements ExperimentStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#db.exec(SCHEMA);
  }

  async create(header: ExperimentHeader): Promise<void> {
    this.#db.prepare(insertHeaderSql(TABLES, DIALECT)).run(...headerValues(header));
  }

  async get(id: string): Promise<ExperimentHeader | null> {
    const row = this.#db.prepare(`SELECT body FROM ${TABLES.experiments} WHERE id = ?`).get(id);
    return row ? parseBody<ExperimentHeader>(row as unknown as BodyRow) : null;
  }

  async list(query: ExperimentListQuery) {
    const { sql, values } = selectExperiments(TABLES, query, DIALECT);
    const bound = values.map((value) => (Array.isArray(value) ? JSON.stringify(value) : value)) as SQLInputValue[];
    return experimentPage(this.#bodies<ExperimentHeader>(sql, bound), query.limit);
  }

  async addVersions(experimentId: string, versions: ExperimentVersion[]): Promise<void> {
    this.#addParts(TABLES.versions, experimentId, versions);
  }

  async addInputs(experimentId: string, inputs: ExperimentInput[]): Promise<void> {
    this.#addParts(TABLES.inputs, experimentId, inputs);
  }

  async versions(experimentId: string): Promise<ExperimentVersion[]> {
    return this.#bodies(selectPartsSql(TABLES.versions, DIALECT), [experimentId]);
  }

  async inputs(experimentId: string): Promise<ExperimentInput[]> {
    return this.#bodies(selectPartsSql(TABLES.inputs, DIALECT), [experimentId]);
  }

  async putCell(experimentId: string, cell: ExperimentCell): Promise<void> {
    this.#db.prepare(putCellSql(TABLES, DIALECT)).run(...cellValues(experimentId, cell));
  }

  async claimCell(experimentId: string, cell: ExperimentCell, staleBefore: string): Promise<boolean> {
    const { changes } = this.#db
      .prepare(claimCellSql(TABLES, DIALECT))
      .run(...cellValues(experimentId, cell), staleBefore);
    // No change: a cell of that id exists and may not be claimed (the upsert's WHERE was false).
    return Number(changes) === 1;
  }

  async cells(experimentId: string): Promise<ExperimentCell[]> {
    return this.#bodies(`SELECT body FROM ${TABLES.cells} WHERE experiment_id = ? ORDER BY id`, [experimentId]);
  }

  async findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null> {
    const values = [key, where.agentId, where.author, where.exceptExperiment];
    return this.#bodies<ExperimentCell>(findCompletedSql(TABLES, DIALECT), values)[0] ?? null;
  }

  #bodies<T>(sql: string, values: SQLInputValue[]): T[] {
    const rows = this.#db.prepare(sql).all(...values) as unknown as BodyRow[];
    return rows.map((row) => parseBody<T>(row));
  }

  /** All rows or none: one transaction. */
  #addParts(table: string, experimentId: string, parts: Array<{ id: string }>): void {
    if (parts.length === 0) return;
    const insert = this.#db.prepare(insertPartsSql(table, 1, DIALECT));
    this.#db.exec('BEGIN');
    try {
      for (const part of parts) insert.run(...partValues(experimentId, part));
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}
