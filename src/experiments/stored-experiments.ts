import { prepare, type StorageEngine } from '../storage/engine.ts';
import { anyOf, atMost, literal, locking } from '../storage/engine-sql.ts';
import type { Builder } from '../storage/kysely.ts';
import { writeRows } from '../storage/write-rows.ts';
import type { ExperimentCell, ExperimentHeader, ExperimentInput, ExperimentVersion } from './experiment.ts';
import {
  type Appended,
  type ExperimentListQuery,
  type ExperimentStore,
  experimentPage,
  type Spending,
} from './experiment-store.ts';
import { bodyOf, cellRow, EXPERIMENTS_SCHEMA, headerRow, type PartTable, partRow } from './experiments-schema.ts';

type Body = { body: unknown };
const [EXPERIMENTS, , , CELLS] = EXPERIMENTS_SCHEMA.tables;

const header = prepare<Body>((db, arg) => db.selectFrom('experiments').select('body').where('id', '=', arg('id')));
const partsOf = (table: PartTable) =>
  prepare<Body>((db, arg) =>
    db.selectFrom(table).select('body').where('experiment_id', '=', arg('experiment')).orderBy('id'),
  );
const PARTS = { experiment_versions: partsOf('experiment_versions'), experiment_inputs: partsOf('experiment_inputs') };
const countOf = (table: PartTable) =>
  prepare<{ held: number }>((db, arg) =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('held'))
      .where('experiment_id', '=', arg('experiment')),
  );
const COUNTS = { experiment_versions: countOf('experiment_versions'), experiment_inputs: countOf('experiment_inputs') };
const cells = prepare<Body>((db, arg) =>
  db.selectFrom('experiment_cells').select('body').where('experiment_id', '=', arg('experiment')).orderBy('id'),
);
/** The claim rule of a cell, checked by the statement that writes it: no gap between the two. */
const claim = prepare((db, arg) =>
  db
    .insertInto('experiment_cells')
    .values(Object.fromEntries(Object.keys(CELLS!.columns).map((column) => [column, arg(column)])))
    .onConflict((on) =>
      on
        .columns(['experiment_id', 'id'])
        .doUpdateSet(
          Object.fromEntries(
            ['key', 'status', 'updated_at', 'body', 'spent_usd', 'held_usd'].map((column) => [
              column,
              (eb: { ref(name: string): never }) => eb.ref(`excluded.${column}`),
            ]),
          ),
        )
        .where((eb) =>
          eb.and([
            eb('experiment_cells.status', '<>', 'completed'),
            eb.or([
              eb('experiment_cells.status', '<>', 'running'),
              eb('experiment_cells.updated_at', '<', arg('stale')),
            ]),
          ]),
        ),
    ),
);
const completed = prepare<Body>((db, arg) =>
  db
    .selectFrom('experiment_cells')
    .select('body')
    .where('experiment_id', '=', arg('experiment'))
    .where('key', '=', arg('key'))
    .where('status', '=', literal('completed'))
    .orderBy('id')
    .limit(atMost(1)),
);
const spent = prepare<{ spent: number }>((db, arg) =>
  db
    .selectFrom('experiment_cells')
    .select((eb) => eb.fn.coalesce(eb.fn.sum('spent_usd'), eb.lit(0)).as('spent'))
    .where('experiment_id', '=', arg('experiment')),
);
const inFlight = (db: Builder, arg: <T>(name: string) => T) =>
  db
    .selectFrom('experiment_cells')
    .where('experiment_id', '=', arg('experiment'))
    .where('status', '=', 'running')
    .where('updated_at', '>=', arg('stale'));
const holds = prepare<{ id: string; held_usd: number }>((db, arg) =>
  inFlight(db, arg).select(['id', 'held_usd']).where('held_usd', '>', 0).orderBy('id'),
);
const running = prepare<{ running: number }>((db, arg) =>
  inFlight(db, arg).select((eb) => eb.fn.countAll().as('running')),
);
/** Reuse across experiments: `IS NOT DISTINCT FROM`, so a `null` author matches only `null` (in-process ones). */
const reusable = prepare<Body>((db, arg) =>
  db
    .selectFrom('experiment_cells as c')
    .innerJoin('experiments as e', 'e.id', 'c.experiment_id')
    .select('c.body')
    .where('c.key', '=', arg('key'))
    .where('c.status', '=', literal('completed'))
    .where('e.agent_id', '=', arg('agent'))
    .where('e.author', 'is not distinct from', arg('author'))
    .where('c.experiment_id', '<>', arg('except'))
    .orderBy('c.updated_at', 'desc')
    .limit(atMost(1)),
);

/**
 * Experiments in tables of any engine, beside the call records (`openStores`): one implementation. A claim is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE`: PostgreSQL locks the conflicting row and checks the claim rule against
 * its latest version, SQLite and memory run one statement at a time, so of two runs claiming a cell only one does.
 */
export class StoredExperiments implements ExperimentStore {
  readonly #engine: StorageEngine;

  constructor(engine: StorageEngine) {
    this.#engine = engine;
    engine.migrateNow?.(EXPERIMENTS_SCHEMA);
  }

  /** Creates or migrates the tables (PostgreSQL: on first use otherwise). */
  ready(): Promise<void> {
    return this.#engine.ready(EXPERIMENTS_SCHEMA);
  }

  async create(experiment: ExperimentHeader): Promise<void> {
    await this.ready();
    await writeRows(this.#engine, EXPERIMENTS!, [headerRow(experiment)], 'error');
  }

  async get(id: string): Promise<ExperimentHeader | null> {
    return (await this.#bodies<ExperimentHeader>(header, { id }))[0] ?? null;
  }

  async list(query: ExperimentListQuery) {
    await this.ready();
    const { kind } = this.#engine;
    const { agent_ids, api_key_ids } = query.scope;
    const page = (db: Builder) => {
      let select = db.selectFrom('experiments').select('body');
      if (agent_ids) select = select.where((eb) => anyOf(kind, eb, 'agent_id', [...agent_ids]));
      if (api_key_ids)
        select = select.where('author', 'is not', null).where((eb) => anyOf(kind, eb, 'author', [...api_key_ids]));
      if (query.agent_id !== undefined) select = select.where('agent_id', '=', query.agent_id);
      if (query.cursor !== undefined) select = select.where('id', '<', query.cursor);
      return select.orderBy('id', 'desc').limit(atMost(query.limit + 1));
    };
    const { rows } = await this.#engine.run<Body>(page);
    return experimentPage(rows.map(bodyOf<ExperimentHeader>), query.limit);
  }

  addVersions(experimentId: string, versions: ExperimentVersion[], max = Infinity): Promise<Appended> {
    return this.#addParts('experiment_versions', experimentId, versions, max);
  }

  addInputs(experimentId: string, inputs: ExperimentInput[], max = Infinity): Promise<Appended> {
    return this.#addParts('experiment_inputs', experimentId, inputs, max);
  }

  async counts(experimentId: string): Promise<{ versions: number; inputs: number }> {
    await this.ready();
    const [versions, inputs] = await Promise.all(
      (['experiment_versions', 'experiment_inputs'] as const).map((table) =>
        this.#engine.run(COUNTS[table], { experiment: experimentId }),
      ),
    );
    return { versions: Number(versions!.rows[0]?.held ?? 0), inputs: Number(inputs!.rows[0]?.held ?? 0) };
  }

  versions(experimentId: string): Promise<ExperimentVersion[]> {
    return this.#bodies(PARTS.experiment_versions, { experiment: experimentId });
  }

  inputs(experimentId: string): Promise<ExperimentInput[]> {
    return this.#bodies(PARTS.experiment_inputs, { experiment: experimentId });
  }

  async putCell(experimentId: string, cell: ExperimentCell): Promise<void> {
    await this.ready();
    await writeRows(this.#engine, CELLS!, [cellRow(experimentId, cell)], 'replace');
  }

  /** No change: a cell of that id exists and may not be claimed (the upsert's WHERE was false). */
  async claimCell(experimentId: string, cell: ExperimentCell, staleBefore: string): Promise<boolean> {
    await this.ready();
    const { changes } = await this.#engine.run(claim, { ...cellRow(experimentId, cell), stale: staleBefore });
    return changes === 1;
  }

  cells(experimentId: string): Promise<ExperimentCell[]> {
    return this.#bodies(cells, { experiment: experimentId });
  }

  async completedCell(experimentId: string, key: string): Promise<ExperimentCell | null> {
    return (await this.#bodies<ExperimentCell>(completed, { experiment: experimentId, key }))[0] ?? null;
  }

  async spending(experimentId: string, staleBefore: string): Promise<Spending> {
    await this.ready();
    const args = { experiment: experimentId, stale: staleBefore };
    const [total, held] = await Promise.all([this.#engine.run(spent, args), this.#engine.run(holds, args)]);
    return {
      spent_usd: Number(total.rows[0]?.spent ?? 0),
      holds: held.rows.map(({ id, held_usd }) => ({ id, held_usd: Number(held_usd) })),
    };
  }

  async running(experimentId: string, staleBefore: string): Promise<number> {
    await this.ready();
    const { rows } = await this.#engine.run(running, { experiment: experimentId, stale: staleBefore });
    return Number(rows[0]?.running ?? 0);
  }

  async findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null> {
    const args = { key, agent: where.agentId, author: where.author, except: where.exceptExperiment };
    return (await this.#bodies<ExperimentCell>(reusable, args))[0] ?? null;
  }

  /**
   * One transaction: the experiment's row locked where rows lock (PostgreSQL: two replicas adding at once take
   * turns), the count checked, every part inserted, all rows or none.
   */
  async #addParts(
    table: PartTable,
    experimentId: string,
    parts: Array<{ id: string }>,
    max: number,
  ): Promise<Appended> {
    await this.ready();
    return this.#engine.transaction(async (tx) => {
      await tx.run((db) => locking(tx.kind, db.selectFrom('experiments').select('id').where('id', '=', experimentId)));
      const held = Number((await tx.run(COUNTS[table], { experiment: experimentId })).rows[0]?.held ?? 0);
      if (held + parts.length > max) return { added: false, held };
      const spec = EXPERIMENTS_SCHEMA.tables.find((each) => each.name === table)!;
      await writeRows(
        tx,
        spec,
        parts.map((part) => partRow(experimentId, part)),
        'error',
      );
      return { added: true, held };
    });
  }

  async #bodies<T>(query: Parameters<StorageEngine['run']>[0], args: Record<string, unknown>): Promise<T[]> {
    await this.ready();
    return (await this.#engine.run<Body>(query as never, args)).rows.map(bodyOf<T>);
  }
}
