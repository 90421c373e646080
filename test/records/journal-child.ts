/**
 * The child process of record-journal.test.ts, run by Node 24 directly (type stripping, no build):
 *
 *   node journal-child.ts <dir> <count>   queues <count> records through a journaled RecordQueue whose flush never
 *                                         comes (a batch and an interval larger than the run), waits until they
 *                                         are durable (the journal's group commit, as an answer does), prints
 *                                         their ids as one JSON line, then kills itself with SIGKILL.
 */
import { MemorySink, RecordJournal, RecordQueue } from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

const [dir, count] = process.argv.slice(2) as [string, string];
const sink = new MemorySink();
const queue = new RecordQueue({
  sinks: [sink],
  batchSize: 10_000,
  flushIntervalMs: 600_000,
  journal: new RecordJournal({ dir, sinks: [sink] }),
});
const ids: string[] = [];
for (let index = 0; index < Number(count); index++) {
  const record = makeRecord({ createdAt: Date.UTC(2026, 0, 1) + index });
  queue.enqueue(record);
  ids.push(record.id);
}
await queue.durable();
process.stdout.write(`${JSON.stringify(ids)}\n`, () => process.kill(process.pid, 'SIGKILL'));
