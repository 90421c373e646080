import { loadZod } from '../internal/load-zod.ts';
import { type Prepared, prepare, type StorageEngine } from '../storage/engine.ts';
import { column, defineSchema } from '../storage/schema.ts';
import { writeRows } from '../storage/write-rows.ts';
import { type Deployment, sameDeployment } from './deployment.ts';
import { DeploymentConflictError, DeploymentStoreError } from './errors.ts';
import { type DeploymentStore, filterAndSort } from './store.ts';
import { validateDeployment } from './validate-deployment.ts';

/** `record` holds the validated deployment as JSON; `agent_id` is a column so one agent's list is an index lookup. */
export const DEPLOYMENTS_SCHEMA = defineSchema({
  name: 'deployments',
  version: 1,
  tables: [
    {
      name: 'deployments',
      columns: {
        id: column.text({ notNull: true }),
        agent_id: column.text({ notNull: true }),
        created_at: column.text({ notNull: true }),
        record: column.json({ notNull: true }),
      },
      primaryKey: ['id'],
      indexes: [{ suffix: 'by_agent_id', columns: ['agent_id'] }],
    },
  ],
});
const [DEPLOYMENTS] = DEPLOYMENTS_SCHEMA.tables;

type Row = { id: string; record: string };
const byId = prepare<Row>((db, arg) =>
  db.selectFrom('deployments').select(['id', 'record']).where('id', '=', arg('id')),
);
const all = prepare<Row>((db) => db.selectFrom('deployments').select(['id', 'record']));
const ofAgent = prepare<Row>((db, arg) =>
  db.selectFrom('deployments').select(['id', 'record']).where('agent_id', '=', arg('agent')),
);

const recentOfAgent = prepare<{ id: string }>((db, arg) =>
  db
    .selectFrom('deployments')
    .select(['id'])
    .where('agent_id', '=', arg('agent'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'asc')
    .limit(arg('limit')),
);

/** Checked records kept (by their text: a record edited by hand is checked again). */
const CHECKED_KEPT = 256;

/** What a store's errors call it: where a bad record was read, and where a conflicting one is kept. */
export interface DeploymentsPlace {
  /** A file, a URL (its password left out), `memory`. */
  location: string;
  /** `in the SQLite deployment store`. */
  conflict: string;
}

/**
 * Deployments in a table of any engine: the same records, ids and rules everywhere (`serve`'s data directory,
 * PostgreSQL shared by every replica, memory). `put` inserts with `ON CONFLICT DO NOTHING`, so an id (and so an
 * `<agent_id>:<environment>#<n>` number) is taken once, whichever writer asks first, even in another process: the
 * other reads the winner's record and finds it identical (a no-op) or throws `DeploymentConflictError`.
 */
export class StoredDeployments implements DeploymentStore {
  readonly #engine: StorageEngine;
  readonly #place: DeploymentsPlace;
  /** Records read before, checked: a call naming a deployment parses and checks it once, not each time. */
  readonly #checked = new Map<string, Deployment>();

  constructor(engine: StorageEngine, place: DeploymentsPlace) {
    this.#engine = engine;
    this.#place = place;
    engine.migrateNow?.(DEPLOYMENTS_SCHEMA);
  }

  /** Creates the table (PostgreSQL: under the migration lock shared by the replicas); retried after a failure. */
  ready(): Promise<void> {
    return this.#engine.ready(DEPLOYMENTS_SCHEMA);
  }

  async get(id: string): Promise<Deployment | undefined> {
    await loadZod();
    const [row] = await this.#rows(byId, { id });
    return row ? this.#parse(row) : undefined;
  }

  async list(filter: { agent_id?: string } = {}): Promise<Deployment[]> {
    await loadZod();
    const rows =
      filter.agent_id === undefined ? await this.#rows(all, {}) : await this.#rows(ofAgent, { agent: filter.agent_id });
    return filterAndSort(
      rows.map((row) => this.#parse(row)),
      filter,
    );
  }

  async recentIds(agentId: string, limit: number): Promise<string[]> {
    const rows = await this.#rows(recentOfAgent, { agent: agentId, limit });
    return rows.map((row) => row.id);
  }

  async put(deployment: Deployment): Promise<void> {
    await loadZod();
    const checked = validateDeployment(deployment, 'put', 400);
    await this.ready();
    const row = {
      id: checked.id,
      agent_id: checked.agent_id,
      created_at: checked.created_at,
      record: JSON.stringify(checked),
    };
    if ((await writeRows(this.#engine, DEPLOYMENTS!, [row], 'ignore')) > 0) return;
    const existing = await this.get(checked.id);
    if (existing && !sameDeployment(existing, checked))
      throw new DeploymentConflictError(checked.id, this.#place.conflict);
  }

  close(): Promise<void> | void {
    return this.#engine.close();
  }

  async #rows<Found>(query: Prepared<Found>, args: Record<string, unknown>): Promise<Found[]> {
    await this.ready();
    return (await this.#engine.run(query, args)).rows;
  }

  /** Rows are validated on the way out too: the table may have been edited by hand. */
  #parse({ id, record }: Row): Deployment {
    const key = `${id}\u0000${record}`;
    const known = this.#checked.get(key);
    if (known) return known;
    const deployment = this.#check(id, record);
    if (this.#checked.size >= CHECKED_KEPT) this.#checked.delete(this.#checked.keys().next().value!);
    this.#checked.set(key, deployment);
    return deployment;
  }

  #check(id: string, record: string): Deployment {
    let value: unknown;
    try {
      value = JSON.parse(record);
    } catch (cause) {
      throw new DeploymentStoreError(`The deployment "${id}" in ${this.#place.location} is not valid JSON.`, {
        location: this.#place.location,
        cause,
      });
    }
    return validateDeployment(value, `${this.#place.location} (deployment "${id}")`);
  }
}
