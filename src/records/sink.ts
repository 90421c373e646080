import type { CallRecord } from './call-record.ts';

/** Where call records go. `write` gets batches from the record queue, one batch at a time. */
export interface RecordSink {
  write(records: CallRecord[]): Promise<void> | void;
  /** Flushes and releases what the sink holds (files, database handles, exporters). */
  close?(): Promise<void> | void;
}

/**
 * Thrown by a sink that stored part of a batch: `refused` records could not be stored (each counted as failed),
 * the others were. `cause` is the first refusal's error.
 */
export class RecordsRefusedError extends Error {
  override name = 'RecordsRefusedError';
  readonly refused: number;
  constructor(refused: number, total: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${refused} of ${total} call records could not be stored: ${reason}`, { cause });
    this.refused = refused;
  }
}
