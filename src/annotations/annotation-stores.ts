import type { DatabaseSync } from 'node:sqlite';
import type { PostgresPool } from '../internal/postgres-pool.ts';
import { MemoryEngine } from '../storage/memory-engine.ts';
import { PostgresEngine } from '../storage/postgres-engine.ts';
import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { StoredAnnotations } from './stored-annotations.ts';

/** `StoredAnnotations` on an engine of its own (`openStores` opens them beside the call records instead). */

/** In this process's memory, the latest `capacity` kept (oldest forgotten first). */
export class MemoryAnnotationStore extends StoredAnnotations {
  constructor(capacity = 10_000) {
    super(new MemoryEngine({ capacity: { annotations: Math.max(1, Math.floor(capacity)) } }));
  }
}

/** In the `annotations` table of an open SQLite connection. */
export class SqliteAnnotationStore extends StoredAnnotations {
  constructor(db: DatabaseSync) {
    super(new SqliteEngine(db));
  }
}

/** In `switchyard_annotations`, on a `pg` pool (made on first use). */
export class PostgresAnnotationStore extends StoredAnnotations {
  constructor(pool: PostgresPool) {
    super(new PostgresEngine(pool));
  }
}
