import type { CallRecord } from './call-record.ts';

/** Where call records go. `write` gets batches from the record queue, one batch at a time. */
export interface RecordSink {
  write(records: CallRecord[]): Promise<void> | void;
  /** Flushes and releases what the sink holds (files, database handles, exporters). */
  close?(): Promise<void> | void;
}
