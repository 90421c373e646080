import { migrate, postgresError } from '../internal/postgres-migrations.ts';
import type { PostgresClient, PostgresPool, PostgresResult } from '../internal/postgres-pool.ts';
import { readableJson } from '../records/sinks/postgres-schema.ts';
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
  experiments: 'switchyard_experiments',
  versions: 'switchyard_experiment_versions',
  inputs: 'switchyard_experiment_inputs',
  cells: 'switchyard_experiment_cells',
};

/**
 * Ids and times are `COLLATE "C"`: pages, cursors, part order and staleness follow the same byte order as SQLite
 * and memory. Objects are kept as JSON text, not JSONB, so they come back exactly as written (key order included).
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
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
  {
    // A budget's sums and a waiting get's count from columns, never from every cell's body. Cells stored before are
    // filled from their bodies, whose json PostgreSQL refuses when they hold U+0000 or lone surrogates: made U+FFFD.
    version: 2,
    sql: `
ALTER TABLE switchyard_experiment_cells ADD COLUMN spent_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  ADD COLUMN held_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
UPDATE switchyard_experiment_cells SET
  spent_usd = CASE WHEN cell ->> 'reused_from' IS NULL THEN coalesce((cell ->> 'cost_usd')::float8, 0) ELSE 0 END,
  held_usd = coalesce((cell ->> 'held_usd')::float8, 0)
  FROM (SELECT experiment_id AS e, id AS i,
      ${readableJson('body')} AS cell
    FROM switchyard_experiment_cells) AS parsed
  WHERE experiment_id = parsed.e AND id = parsed.i;
CREATE INDEX switchyard_experiment_cells_by_state
  ON switchyard_experiment_cells (experiment_id, status, updated_at, held_usd, spent_usd);`,
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

  async addVersions(experimentId: string, versions: ExperimentVersion[], max = Infinity): Promise<Appended> {
    return this.#addParts(TABLES.versions, experimentId, versions, max);
  }

  async addInputs(experimentId: string, inputs: ExperimentInput[], max = Infinity): Promise<Appended> {
    return this.#addParts(TABLES.inputs, experimentId, inputs, max);
  }

  async counts(experimentId: string): Promise<{ versions: number; inputs: number }> {
    const { rows } = await this.#query<{ versions: string; inputs: string }>(countsSql(TABLES, DIALECT), [
      experimentId,
      experimentId,
    ]);
    return { versions: Number(rows[0]?.versions ?? 0), inputs: Number(rows[0]?.inputs ?? 0) };
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

  async completedCell(experimentId: string, key: string): Promise<ExperimentCell | null> {
    return (await this.#bodies<ExperimentCell>(completedCellSql(TABLES, DIALECT), [experimentId, key]))[0] ?? null;
  }

  async spending(experimentId: string, staleBefore: string): Promise<Spending> {
    const { spent, holds } = spendingSql(TABLES, DIALECT);
    const [total, held] = await Promise.all([
      this.#query<{ spent: number }>(spent, [experimentId]),
      this.#query<{ id: string; held_usd: number }>(holds, [experimentId, staleBefore]),
    ]);
    return {
      spent_usd: Number(total.rows[0]?.spent ?? 0),
      holds: held.rows.map(({ id, held_usd }) => ({ id, held_usd })),
    };
  }

  async running(experimentId: string, staleBefore: string): Promise<number> {
    const { rows } = await this.#query<{ running: string }>(runningSql(TABLES, DIALECT), [experimentId, staleBefore]);
    return Number(rows[0]?.running ?? 0);
  }

  async findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null> {
    const values = [key, where.agentId, where.author, where.exceptExperiment];
    return (await this.#bodies<ExperimentCell>(findCompletedSql(TABLES, DIALECT), values))[0] ?? null;
  }

  /**
   * One transaction: the experiment's row locked (two replicas adding at once take turns), the count checked, one
   * INSERT of every part, all rows or none.
   */
  async #addParts(table: string, experimentId: string, parts: Array<{ id: string }>, max: number): Promise<Appended> {
    await this.#migrated();
    let client: PostgresClient | undefined;
    try {
      client = await this.#pool.connect();
      await client.query('BEGIN');
      await client.query(`SELECT id FROM ${TABLES.experiments} WHERE id = $1 FOR UPDATE`, [experimentId]);
      const count = await client.query(`SELECT count(*) AS held FROM ${table} WHERE experiment_id = $1`, [
        experimentId,
      ]);
      const held = Number(count.rows[0]?.held ?? 0);
      const added = held + parts.length <= max;
      if (added && parts.length > 0) {
        const values = parts.flatMap((part) => partValues(experimentId, part));
        await client.query(insertPartsSql(table, parts.length, DIALECT), values);
      }
      await client.query('COMMIT');
      return { added, held };
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      throw postgresError(error);
    } finally {
      client?.release();
    }
  }
}
