import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { StoredDeployments } from './stored-deployments.ts';

/** Deployments in a SQLite table (the one `switchyard serve` keeps in its data directory): `StoredDeployments`. */
export class SqliteDeploymentStore extends StoredDeployments {
  readonly path: string;
  readonly #engine: SqliteEngine;

  /** `path` is a database file (its directory is created; the file may hold other tables) or `:memory:`. */
  constructor(path: string) {
    const engine = new SqliteEngine(path, 'SqliteDeploymentStore');
    super(engine, { location: path, conflict: 'in the SQLite deployment store' });
    this.path = path;
    this.#engine = engine;
  }

  override close(): void {
    this.#engine.closeNow();
  }
}
