import type { CallRecord } from '../call-record.ts';
import type { RecordSink } from '../sink.ts';

/** Hands each record to a function, in order: to forward records to a logger, a queue or a metrics client. */
export class CallbackSink implements RecordSink {
  readonly #callback: (record: CallRecord) => Promise<void> | void;

  constructor(callback: (record: CallRecord) => Promise<void> | void) {
    this.#callback = callback;
  }

  async write(records: CallRecord[]): Promise<void> {
    for (const record of records) await this.#callback(record);
  }
}
