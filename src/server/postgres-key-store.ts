import { PostgresEngine } from '../storage/postgres-engine.ts';
import { ApiKeyStore } from './api-keys.ts';

/**
 * API keys in PostgreSQL, shared by every replica of `serve` (`--database`): the same keys, hashes and lineage as
 * the SQLite file's (`ApiKeyStore` on a PostgreSQL engine).
 */
export class PostgresKeyStore extends ApiKeyStore {
  readonly #engine: PostgresEngine;

  constructor(url: string, options: ConstructorParameters<typeof ApiKeyStore>[1] = {}) {
    // A hung server is a 503 within a second or two, not a hang; waiting for one of the pool's connections behind a
    // burst of mints may take a little longer than a single query.
    const engine = new PostgresEngine({ connectionString: url, connectionTimeoutMillis: 2_000 }, { max: 8 });
    super(engine, options);
    this.#engine = engine;
  }

  override async close(): Promise<void> {
    await this.#engine.close();
  }
}
