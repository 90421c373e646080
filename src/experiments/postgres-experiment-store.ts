import { migrate, postgresError } from '../internal/postgres-migrations.ts';
import type { PostgresPool, PostgresResult } from '../internal/postgres-pool.ts';
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
  experiments: 'switchyard_experiments',
  versions: 'switchyard_experiment_versions',
  inputs: 'switchyard_experiment_inputs',
  cells: 'switchyard_experiment_cells',
};

/**
 * Ids and times are `COLLATE "C"`: pages, cursors, part order and staleness follow the same byte order as SQLite
 * and memory. Objects are kept as JSON text, not JSONB, so they come back exactly as written (key order included).
 */
const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
CREATE TABLE switchyard_experiments (
  id TEXT COLLATE "C" PRIMARY KEY,
  agent_id TEXT NOT NULL,
  author TEXT,
  created_at TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX switchyard_experiments_by_agent ON switchyard_experiments (agent_id, id);
CREATE TABLE switchyard_experiment_versions (
  experiment_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE TABLE switchyard_experiment_inputs (
  experiment_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE TABLE switchyard_experiment_cells (
  experiment_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (experiment_id, id)
);
CREATE INDEX switchyard_experiment_cells_by_key ON switchyard_experiment_cells (key, updated_at)
  WHERE status = 'completed';`,
  },
];

const DIALECT: ExperimentDialect = {
  param: (n) => `$${n}`,
  inList: (column, n) => `${column} = ANY($${n}::text[])`,
};

/**
 * Experiments in `switchyard_experiment*` tables, on `PostgresSink`'s pool; the tables are made on first use. A
 * claim is one `INSERT … ON CONFLICT DO UPDATE … WHERE`: PostgreSQL locks the conflicting row and checks the
 * claim rule against its latest version, so of two replicas claiming one cell only one gets a row back.
 */
export class PostgresExperimentStore implements ExperimentStore {
  readonly #pool: PostgresPool;
  #ready: Promise<void> | undefined;

  /** A `pg` Pool (`PostgresSink` hands over its own). */
  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  #migrated(): Promise<void> {
    this.#ready ??= migrate(this.#pool, 'experiments', MIGRATIONS).catch((error: unknown) => {
      this.#ready = undefined;
      throw postgresError(error);
    });
    return this.#ready;
  }

  async #query<R>(sql: string, values: unknown[]): Promise<PostgresResult<R>> {
    await this.#migrated();
    try {
      return (await this.#pool.query(sql, values)) as PostgresResult<R>;
    } catch (error) {
      throw postgresError(error);
    }
  }

  async #bodies<T>(sql: string, values: unknown[]): Promise<T[]> {
    const { rows } = await this.#query<BodyRow>(sql, values);
    return rows.map((row) => parseBody<T>(row));
  }

  async create(header: ExperimentHeader): Promise<void> {
    await this.#query(insertHeaderSql(TABLES, DIALECT), headerValues(header));
  }

  async get(id: string): Promise<ExperimentHeader | null> {
    const rows = await this.#bodies<ExperimentHeader>(`SELECT body FROM ${TABLES.experiments} WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async list(query: ExperimentListQuery) {
    const { sql, values } = selectExperiments(TABLES, query, DIALECT);
    return experimentPage(await this.#bodies<ExperimentHeader>(sql, values), query.limit);
  }

  async addVersions(experimentId: string, versions: ExperimentVersion[]): Promise<void> {
    await this.#addParts(TABLES.versions, experimentId, versions);
  }

  async addInputs(experimentId: string, inputs: ExperimentInput[]): Promise<void> {
    await this.#addParts(TABLES.inputs, experimentId, inputs);
  }

  async versions(experimentId: string): Promise<ExperimentVersion[]> {
    return this.#bodies(selectPartsSql(TABLES.versions, DIALECT), [experimentId]);
  }

  async inputs(experimentId: string): Promise<ExperimentInput[]> {
    return this.#bodies(selectPartsSql(TABLES.inputs, DIALECT), [experimentId]);
  }

  async putCell(experimentId: string, cell: ExperimentCell): Promise<void> {
    await this.#query(putCellSql(TABLES, DIALECT), cellValues(experimentId, cell));
  }

  async claimCell(experimentId: string, cell: ExperimentCell, staleBefore: string): Promise<boolean> {
    const sql = `${claimCellSql(TABLES, DIALECT)} RETURNING id`;
    const { rowCount } = await this.#query(sql, [...cellValues(experimentId, cell), staleBefore]);
    return rowCount === 1;
  }

  async cells(experimentId: string): Promise<ExperimentCell[]> {
    return this.#bodies(`SELECT body FROM ${TABLES.cells} WHERE experiment_id = $1 ORDER BY id`, [experimentId]);
  }

  async findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null> {
    const values = [key, where.agentId, where.author, where.exceptExperiment];
    return (await this.#bodies<ExperimentCell>(findCompletedSql(TABLES, DIALECT), values))[0] ?? null;
  }

  /** One INSERT statement: all rows or none. */
  async #addParts(table: string, experimentId: string, parts: Array<{ id: string }>): Promise<void> {
    if (parts.length === 0) return;
    const values = parts.flatMap((part) => partValues(experimentId, part));
    await this.#query(insertPartsSql(table, parts.length, DIALECT), values);
  }
}
