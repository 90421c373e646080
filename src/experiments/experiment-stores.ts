import type { DatabaseSync } from 'node:sqlite';
import type { PostgresPool } from '../internal/postgres-pool.ts';
import { MemoryEngine } from '../storage/memory-engine.ts';
import { PostgresEngine } from '../storage/postgres-engine.ts';
import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { StoredExperiments } from './stored-experiments.ts';

/** `StoredExperiments` on an engine of its own (`openStores` opens them beside the call records instead). */

/** In this process's memory. */
export class MemoryExperimentStore extends StoredExperiments {
  constructor() {
    super(new MemoryEngine());
  }
}

/** In the `experiment*` tables of an open SQLite connection. */
export class SqliteExperimentStore extends StoredExperiments {
  constructor(db: DatabaseSync) {
    super(new SqliteEngine(db));
  }
}

/** In `switchyard_experiment*` tables, on a `pg` pool (made on first use). */
export class PostgresExperimentStore extends StoredExperiments {
  constructor(pool: PostgresPool) {
    super(new PostgresEngine(pool));
  }
}
