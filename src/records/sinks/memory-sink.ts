import { prepare } from '../../storage/engine.ts';
import { MemoryEngine } from '../../storage/memory-engine.ts';
import type { CallRecord } from '../call-record.ts';
import { recordOf } from '../calls-schema.ts';
import { StoredCalls } from '../stored-calls.ts';

export interface MemorySinkOptions {
  /** Records kept; past it the oldest written are forgotten (default 10_000). */
  capacity?: number | undefined;
}

const everyRecord = prepare<{ record: unknown }>((db) => db.selectFrom('calls').select('record'));
const forgetAll = prepare((db) => db.deleteFrom('calls'));

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

  /** The kept records, oldest written first. */
  records(): CallRecord[] {
    return (this.engine as MemoryEngine).runNow(everyRecord).rows.map((row) => recordOf(row.record));
  }

  clear(): void {
    (this.engine as MemoryEngine).runNow(forgetAll);
  }
}
