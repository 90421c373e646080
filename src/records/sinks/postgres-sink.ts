import type { PostgresPoolConfig } from '../../internal/postgres-pool.ts';
import { PostgresEngine } from '../../storage/postgres-engine.ts';
import { StoredCalls } from '../stored-calls.ts';

/**
 * Call records in PostgreSQL (a `pg` pool), answering the call-store queries with SQL (`StoredCalls`): the sibling
 * of `SqliteSink` for several processes sharing one database. The schema is created and migrated on first use,
 * under an advisory lock.
 */
export class PostgresSink extends StoredCalls {
  /** A `postgres://…` URL or `pg` pool options. */
  constructor(connection: string | PostgresPoolConfig) {
    // Summaries over every record can take seconds on a large table: a longer bound than a key lookup's.
    super(new PostgresEngine(connection, { max: 4, queryTimeoutMs: 15_000 }));
  }

  override close(): Promise<void> {
    return this.engine.close();
  }

  /** Whether PostgreSQL answers within `timeoutMs` (health checks); throws `StorageUnavailableError` if not. */
  ping(timeoutMs = 1_000): Promise<void> {
    return (this.engine as PostgresEngine).ping(timeoutMs);
  }
}
