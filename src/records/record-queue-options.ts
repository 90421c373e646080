import { emitProcessWarning } from '../internal/runtime.ts';
import type { RecordJournal } from './record-journal.ts';
import type { RecordSink } from './sink.ts';

/** A flush starts at the latest this long after a record arrives, unless `flushIntervalMs` says otherwise. */
export const DEFAULT_FLUSH_INTERVAL_MS = 1000;

/** How a `RecordQueue` writes and tells (`record-queue.ts`), and what it counts. */
export interface RecordQueueOptions {
  sinks: RecordSink[];
  /** Records waiting at most; past it new records are dropped and counted (default 10_000). */
  maxQueued?: number | undefined;
  /** A flush starts once this many records wait (default 200), and writes batches of at most this size. */
  batchSize?: number | undefined;
  /** A flush starts at the latest this long after a record arrives (default `DEFAULT_FLUSH_INTERVAL_MS`). */
  flushIntervalMs?: number | undefined;
  /**
   * Told about a sink's failure: the first one after a success, then at most once a minute while it keeps
   * failing. `error` is the sink's own (SQLite's "database or disk is full", say). Default: a process warning.
   */
  onError?: ((error: unknown, sink: RecordSink) => void) | undefined;
  /**
   * Told when records are dropped (queue full or closed): the first time, then at most once a minute.
   * Default: a process warning.
   */
  onDropped?: ((stats: RecordQueueStats) => void) | undefined;
  /**
   * A write-ahead journal: each accepted record is appended to it in `enqueue`, and a flush that its sinks failed
   * keeps the records there to replay (see `RecordJournal`). What a dead process left is replayed soon after start.
   */
  journal?: RecordJournal | undefined;
}

export interface RecordQueueStats {
  /** Records waiting to be written. */
  queued: number;
  /** Records every sink has been handed and none failed on. */
  written: number;
  /** Records refused because the queue was full or closed, or deleted unstored from a journal past its size. */
  dropped: number;
  /** Failed writes: one per record a sink could not store (the batch when the sink threw, else the rows it refused). */
  failed: number;
  /** Records only partly built (a malformed answer, say): stored with a `record_incomplete` warning naming the gaps. */
  build_failed: number;
  /** When a record was last dropped or not stored (ISO 8601); `null` while none was lost. */
  last_loss_at: string | null;
  /**
   * Writes to the journal (serve's, or one given as `records.journal`): one for a turn's batch, or for a record
   * written alone. `written` ÷ this is the records a write; 0 without a journal.
   */
  journal_writes: number;
}

/** The default of `onDropped`: a process warning. */
export function emitDropWarning(stats: RecordQueueStats): void {
  const message = `switchyard: call records dropped (${stats.dropped} so far): the record queue was full or closed`;
  emitProcessWarning(message, 'SWITCHYARD_RECORDS_DROPPED');
}

/** The default of `onError`: a process warning naming the sink. */
export function emitSinkWarning(error: unknown, sink: RecordSink): void {
  const reason = error instanceof Error ? error.message : String(error);
  emitProcessWarning(
    `switchyard: the ${sink.constructor.name} call-record sink failed: ${reason}`,
    'SWITCHYARD_RECORD_SINK',
  );
}
