import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { ExperimentCell, ExperimentHeader, ExperimentInput, ExperimentVersion } from './experiment.ts';
import {
  type BodyRow,
  cellValues,
  claimCellSql,
  completedCellSql,
  countsSql,
  type ExperimentDialect,
  type ExperimentTables,
  findCompletedSql,
  headerValues,
  insertHeaderSql,
  insertPartsSql,
  parseBody,
  partValues,
  putCellSql,
  runningSql,
  selectExperiments,
  selectPartsSql,
  spendingSql,
} from './experiment-sql.ts';
import {
  type Appended,
  type ExperimentListQuery,
  type ExperimentStore,
  experimentPage,
  type Spending,
} from './experiment-store.ts';

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
  spent_usd REAL NOT NULL DEFAULT 0,
  held_usd REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (experiment_id, id)
);
CREATE INDEX IF NOT EXISTS experiment_cells_by_key ON experiment_cells (key, updated_at) WHERE status = 'completed';
`;

/** Covers the budget's and a waiting `get`'s questions: the rows of an experiment's cells are never read for them. */
const CELL_STATE_INDEX = `CREATE INDEX IF NOT EXISTS experiment_cells_by_state
  ON experiment_cells (experiment_id, status, updated_at, held_usd, spent_usd)`;

/** Cells stored before `spent_usd` and `held_usd`: both filled from each cell's body, once. */
const CELL_MONEY_COLUMNS = `ALTER TABLE experiment_cells ADD COLUMN spent_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE experiment_cells ADD COLUMN held_usd REAL NOT NULL DEFAULT 0;
UPDATE experiment_cells SET
  spent_usd = CASE WHEN json_extract(body, '$.reused_from') IS NULL THEN coalesce(json_extract(body, '$.cost_usd'), 0)
    ELSE 0 END,
  held_usd = coalesce(json_extract(body, '$.held_usd'), 0)
  WHERE json_valid(body);`;

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

  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const columns = db.prepare('PRAGMA table_info(experiment_cells)').all() as Array<{ name: string }>;
      this.#db.exec(SCHEMA);
      if (columns.length > 0 && !columns.some((column) => column.name === 'spent_usd')) db.exec(CELL_MONEY_COLUMNS);
      this.#db.exec(CELL_STATE_INDEX);
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  async create(header: ExperimentHeader): Promise<void> {
    this.#statement(insertHeaderSql(TABLES, DIALECT)).run(...headerValues(header));
  }

  async get(id: string): Promise<ExperimentHeader | null> {
    const row = this.#statement(`SELECT body FROM ${TABLES.experiments} WHERE id = ?`).get(id);
    return row ? parseBody<ExperimentHeader>(row as unknown as BodyRow) : null;
  }

  async list(query: ExperimentListQuery) {
    const { sql, values } = selectExperiments(TABLES, query, DIALECT);
    const bound = values.map((value) => (Array.isArray(value) ? JSON.stringify(value) : value)) as SQLInputValue[];
    return experimentPage(this.#bodies<ExperimentHeader>(sql, bound), query.limit);
  }

  async addVersions(experimentId: string, versions: ExperimentVersion[], max = Infinity): Promise<Appended> {
    return this.#addParts(TABLES.versions, experimentId, versions, max);
  }

  async addInputs(experimentId: string, inputs: ExperimentInput[], max = Infinity): Promise<Appended> {
    return this.#addParts(TABLES.inputs, experimentId, inputs, max);
  }

  async counts(experimentId: string): Promise<{ versions: number; inputs: number }> {
    return this.#statement(countsSql(TABLES, DIALECT)).get(experimentId, experimentId) as {
      versions: number;
      inputs: number;
    };
  }

  async versions(experimentId: string): Promise<ExperimentVersion[]> {
    return this.#bodies(selectPartsSql(TABLES.versions, DIALECT), [experimentId]);
  }

  async inputs(experimentId: string): Promise<ExperimentInput[]> {
    return this.#bodies(selectPartsSql(TABLES.inputs, DIALECT), [experimentId]);
  }

  async putCell(experimentId: string, cell: ExperimentCell): Promise<void> {
    this.#statement(putCellSql(TABLES, DIALECT)).run(...cellValues(experimentId, cell));
  }

  async claimCell(experimentId: string, cell: ExperimentCell, staleBefore: string): Promise<boolean> {
    const { changes } = this.#statement(claimCellSql(TABLES, DIALECT)).run(
      ...cellValues(experimentId, cell),
      staleBefore,
    );
    // No change: a cell of that id exists and may not be claimed (the upsert's WHERE was false).
    return Number(changes) === 1;
  }

  async cells(experimentId: string): Promise<ExperimentCell[]> {
    return this.#bodies(`SELECT body FROM ${TABLES.cells} WHERE experiment_id = ? ORDER BY id`, [experimentId]);
  }

  async completedCell(experimentId: string, key: string): Promise<ExperimentCell | null> {
    return this.#bodies<ExperimentCell>(completedCellSql(TABLES, DIALECT), [experimentId, key])[0] ?? null;
  }

  async spending(experimentId: string, staleBefore: string): Promise<Spending> {
    const { spent, holds } = spendingSql(TABLES, DIALECT);
    const total = this.#statement(spent).get(experimentId) as { spent: number };
    const rows = this.#statement(holds).all(experimentId, staleBefore) as Spending['holds'];
    return { spent_usd: total.spent, holds: rows.map(({ id, held_usd }) => ({ id, held_usd })) };
  }

  async running(experimentId: string, staleBefore: string): Promise<number> {
    return (this.#statement(runningSql(TABLES, DIALECT)).get(experimentId, staleBefore) as { running: number }).running;
  }

  async findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null> {
    const values = [key, where.agentId, where.author, where.exceptExperiment];
    return this.#bodies<ExperimentCell>(findCompletedSql(TABLES, DIALECT), values)[0] ?? null;
  }

  #bodies<T>(sql: string, values: SQLInputValue[]): T[] {
    const rows = this.#statement(sql).all(...values) as unknown as BodyRow[];
    return rows.map((row) => parseBody<T>(row));
  }

  /** Prepared once per statement: a run of 10,000 cells asks the same few thousands of times. */
  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  /** All rows or none, the count checked in the same transaction (node:sqlite: nothing runs between). */
  #addParts(table: string, experimentId: string, parts: Array<{ id: string }>, max: number): Appended {
    const count = `SELECT count(*) AS held FROM ${table} WHERE experiment_id = ?`;
    const { held } = this.#statement(count).get(experimentId) as { held: number };
    if (held + parts.length > max) return { added: false, held };
    if (parts.length === 0) return { added: true, held };
    const insert = this.#statement(insertPartsSql(table, 1, DIALECT));
    this.#db.exec('BEGIN');
    try {
      for (const part of parts) insert.run(...partValues(experimentId, part));
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
    return { added: true, held };
  }
}
