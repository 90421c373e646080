import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { loadSqlite } from '../internal/load-sqlite.ts';
import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import { type Deployment, sameDeployment } from './deployment.ts';
import { DeploymentConflictError, DeploymentStoreError } from './errors.ts';
import { type DeploymentStore, filterAndSort } from './store.ts';
import { validateDeployment } from './validate-deployment.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'The SQLite deployment store');
const nodePath = lazyNodeBuiltin('node:path', 'The SQLite deployment store');

/** `record` holds the validated deployment as JSON; `agent_id` is a column so one agent's list is an index lookup. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS deployments (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deployments_by_agent_id ON deployments (agent_id);
`;

/**
 * Deployments in a SQLite table (the one `switchyard serve` keeps in its data directory). `put` inserts with
 * `ON CONFLICT DO NOTHING`, so an existing id is never overwritten, not even by a concurrent writer in another
 * process: the loser reads the winner's record and either finds it identical or throws `DeploymentConflictError`.
 */
export class SqliteDeploymentStore implements DeploymentStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #byId: StatementSync;
  readonly #all: StatementSync;
  readonly #byAgent: StatementSync;

  /** `path` is a database file (its directory is created; the file may hold other tables) or `:memory:`. */
  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') nodeFs().mkdirSync(nodePath().dirname(path), { recursive: true });
    this.#db = new (loadSqlite('SqliteDeploymentStore').DatabaseSync)(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.#db.exec(SCHEMA);
    this.#insert = this.#db.prepare(
      'INSERT INTO deployments (id, agent_id, created_at, record) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    this.#byId = this.#db.prepare('SELECT record FROM deployments WHERE id = ?');
    this.#all = this.#db.prepare('SELECT id, record FROM deployments');
    this.#byAgent = this.#db.prepare('SELECT id, record FROM deployments WHERE agent_id = ?');
  }

  async get(id: string): Promise<Deployment | undefined> {
    const row = this.#byId.get(id) as { record: string } | undefined;
    return row ? this.#parse(id, row.record) : undefined;
  }

  async list(filter: { agent_id?: string } = {}): Promise<Deployment[]> {
    const rows = (filter.agent_id === undefined ? this.#all.all() : this.#byAgent.all(filter.agent_id)) as Array<{
      id: string;
      record: string;
    }>;
    return filterAndSort(
      rows.map((row) => this.#parse(row.id, row.record)),
      filter,
    );
  }

  async put(deployment: Deployment): Promise<void> {
    const checked = validateDeployment(deployment, 'put', 400);
    const { changes } = this.#insert.run(checked.id, checked.agent_id, checked.created_at, JSON.stringify(checked));
    if (changes > 0) return;
    const existing = await this.get(checked.id);
    if (existing && !sameDeployment(existing, checked))
      throw new DeploymentConflictError(checked.id, 'in the SQLite deployment store');
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  /** Rows are validated on the way out too: the file may have been edited by hand. */
  #parse(id: string, text: string): Deployment {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw new DeploymentStoreError(`The deployment "${id}" in ${this.path} is not valid JSON.`, {
        location: this.path,
        cause,
      });
    }
    return validateDeployment(value, `${this.path} (deployment "${id}")`);
  }
}
