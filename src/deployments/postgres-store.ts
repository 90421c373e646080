import type { Pool } from 'pg';
import { lazyRequire } from '../internal/lazy-require.ts';
import { FAIL_FAST_POOL, migrate, postgresError } from '../internal/postgres-migrations.ts';
import { redactUrlCredentials } from '../internal/redact.ts';
import { type Deployment, sameDeployment } from './deployment.ts';
import { DeploymentConflictError, DeploymentStoreError } from './errors.ts';
import { type DeploymentStore, filterAndSort } from './store.ts';
import { validateDeployment } from './validate-deployment.ts';

const pg = lazyRequire<typeof import('pg')>('pg');

/** The same table as the SQLite store's: `record` holds the validated deployment as JSON. */
const MIGRATIONS = [
  {
    version: 1,
    sql: `
CREATE TABLE switchyard_deployments (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX switchyard_deployments_by_agent_id ON switchyard_deployments (agent_id);`,
  },
];

/**
 * Deployments in PostgreSQL, shared by every replica of `serve --database`: the same records, ids and rules as
 * `SqliteDeploymentStore`. `put` inserts with `ON CONFLICT DO NOTHING`, so an id (and so an
 * `<agent_id>:<environment>#<n>` number) is taken once, whichever replica asks first: the other reads the winner's
 * record and finds it identical (a no-op) or throws `DeploymentConflictError`.
 */
export class PostgresDeploymentStore implements DeploymentStore {
  readonly #pool: Pool;
  readonly #location: string;
  #ready: Promise<void> | undefined;

  constructor(url: string) {
    this.#location = redactUrlCredentials(url);
    this.#pool = new (pg().Pool)({ connectionString: url, max: 4, ...FAIL_FAST_POOL });
    this.#pool.on('error', () => {});
  }

  /** Creates the table once (under the migration lock shared by the replicas); retried after a failure. */
  ready(): Promise<void> {
    this.#ready ??= migrate(this.#pool, 'deployments', MIGRATIONS).catch((error: unknown) => {
      this.#ready = undefined;
      throw postgresError(error);
    });
    return this.#ready;
  }

  async get(id: string): Promise<Deployment | undefined> {
    const rows = await this.#query('SELECT id, record FROM switchyard_deployments WHERE id = $1', [id]);
    return rows[0] ? this.#parse(rows[0].id, rows[0].record) : undefined;
  }

  async list(filter: { agent_id?: string } = {}): Promise<Deployment[]> {
    const rows =
      filter.agent_id === undefined
        ? await this.#query('SELECT id, record FROM switchyard_deployments', [])
        : await this.#query('SELECT id, record FROM switchyard_deployments WHERE agent_id = $1', [filter.agent_id]);
    return filterAndSort(
      rows.map((row) => this.#parse(row.id, row.record)),
      filter,
    );
  }

  async put(deployment: Deployment): Promise<void> {
    const checked = validateDeployment(deployment, 'put', 400);
    const inserted = await this.#query(
      'INSERT INTO switchyard_deployments (id, agent_id, created_at, record) VALUES ($1, $2, $3, $4) ' +
        'ON CONFLICT (id) DO NOTHING RETURNING id',
      [checked.id, checked.agent_id, checked.created_at, JSON.stringify(checked)],
    );
    if (inserted.length > 0) return;
    const existing = await this.get(checked.id);
    if (existing && !sameDeployment(existing, checked))
      throw new DeploymentConflictError(checked.id, 'in the PostgreSQL deployment store');
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => {});
  }

  async #query(text: string, values: unknown[]): Promise<Array<{ id: string; record: string }>> {
    await this.ready();
    try {
      return (await this.#pool.query(text, values)).rows;
    } catch (error) {
      throw postgresError(error);
    }
  }

  /** Rows are validated on the way out too: the table may have been edited by hand. */
  #parse(id: string, text: string): Deployment {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw new DeploymentStoreError(`The deployment "${id}" in PostgreSQL is not valid JSON.`, {
        location: this.#location,
        cause,
      });
    }
    return validateDeployment(value, `PostgreSQL (deployment "${id}")`);
  }
}
