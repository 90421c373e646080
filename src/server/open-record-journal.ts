import { join } from 'node:path';
import { RecordJournal } from '../records/record-journal.ts';
import type { RecordSink } from '../records/sink.ts';

type Log = (msg: string, fields?: object) => void;

/**
 * `serve`'s write-ahead journal in `<data>/record-journal/`: an answered call's record is on disk before the answer
 * and a stream's from its start, so kill -9 loses no answered call and leaves a record of each stream it cut.
 */
export function openRecordJournal(dataDir: string, store: RecordSink, log: { info: Log; warn: Log }): RecordJournal {
  const onError = (error: unknown) =>
    log.warn('the call-record journal failed', { error: error instanceof Error ? error.message : String(error) });
  const journal = new RecordJournal({ dir: join(dataDir, 'record-journal'), sinks: [store], onError });
  if (journal.pendingRecords) log.info('replaying records a stopped process left', { records: journal.pendingRecords });
  return journal;
}
