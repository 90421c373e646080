import { RecordJournal } from '../../src/records/record-journal.ts';
import { RecordQueue } from '../../src/records/record-queue.ts';
import type { RecordSink } from '../../src/records/sink.ts';

/**
 * A queue journaled in `dir` whose flushes come only when the test asks (no timer, no full batch); the journal's
 * failures go to `onError`, the queue's reports nowhere.
 */
export function journaledQueueIn(
  dir: string,
  sink: RecordSink,
  options: { maxBytes?: number | undefined; onError?: (error: unknown) => void } = {},
) {
  const { maxBytes, onError = () => {} } = options;
  const journal = new RecordJournal({ dir, sinks: [sink], ...(maxBytes ? { maxBytes } : {}), onError });
  const queue = new RecordQueue({
    sinks: [sink],
    batchSize: 1000,
    flushIntervalMs: 600_000,
    journal,
    onError: () => {},
    onDropped: () => {},
  });
  return { journal, queue };
}
