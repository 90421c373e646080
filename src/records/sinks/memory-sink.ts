import { MemoryEngine } from '../../storage/memory-engine.ts';
import type { MemoryTable } from '../../storage/memory-table.ts';
import type { CallRecord } from '../call-record.ts';
import { CALLS_TABLE, recordOf } from '../calls-schema.ts';
import { StoredCalls } from '../stored-calls.ts';

export interface MemorySinkOptions {
  /** Records kept; past it the oldest written are forgotten (default 10_000). */
  capacity?: number | undefined;
}

/**
 * The latest records in this process's memory (the memory engine, the oldest written forgotten past `capacity`),
 * answering the call-store queries as the SQL stores do: the gateway's default, and for tests and development.
 */
export class MemorySink extends StoredCalls {
  readonly capacity: number;

  constructor(options: MemorySinkOptions = {}) {
    const capacity = Math.max(1, Math.floor(options.capacity ?? 10_000));
    // Annotations of these calls are kept in the same number.
    super(new MemoryEngine({ capacity: { calls: capacity, annotations: capacity } }));
    this.capacity = capacity;
  }

  /**
   * The kept records, oldest written first: the table's rows as they are, read at once (no query, so no query
   * builder to load: a page that only reads its records back never loads one).
   */
  records(): CallRecord[] {
    return [...this.#calls().rows()].map((row) => recordOf(row.record));
  }

  clear(): void {
    const calls = this.#calls();
    for (const row of [...calls.rows()]) calls.delete(row, []);
  }

  #calls(): MemoryTable {
    return (this.engine as MemoryEngine).table(CALLS_TABLE.name)!;
  }
}
