import { breather } from '../internal/breathing.ts';
import { parseLines } from './journal-lines.ts';
import type { RecordJournal } from './record-journal.ts';
import { type RecordSink, RecordsRefusedError } from './sink.ts';

export interface ReplayOutcome {
  /** Records every journaled sink stored. */
  stored: number;
  /** Records a sink refused, or lines that did not parse: lost for good. */
  lost: number;
  /** The sink that failed as a whole and its error: the file it was replaying is kept for the next flush. */
  failure?: { sink: RecordSink; error: unknown };
}

/**
 * Writes the journal's pending files to its sinks, oldest first, in batches, and deletes each once stored. A sink
 * that refuses rows (bad data) loses those rows only; one that fails as a whole (an outage) stops the replay, and
 * the file stays, to be replayed from its first batch not stored after a later flush succeeds. A record may still
 * reach a sink twice (a sink that stored a batch, then another failed; a process killed mid-replay): the sinks
 * upsert by record id, so that never duplicates a call.
 */
export async function replayJournal(journal: RecordJournal, batchSize: number): Promise<ReplayOutcome> {
  const outcome: ReplayOutcome = { stored: 0, lost: 0 };
  // A file left by a process killed while its store was down may hold thousands of records: not one block.
  const breathe = breather(1);
  for (const segment of journal.pendingSegments) {
    const reading = journal.read(segment, batchSize);
    let whole = false;
    try {
      for (let next = reading.next(); ; next = reading.next()) {
        if (next.done) {
          whole = next.value;
          break;
        }
        await breathe();
        // Parsed batch by batch: the JSON of thousands of records is not one block either.
        const { records: batch, unreadable } = parseLines(next.value.lines);
        let refused = 0;
        for (const sink of journal.sinks) {
          try {
            await sink.write(batch);
          } catch (error) {
            if (!(error instanceof RecordsRefusedError)) {
              outcome.failure = { sink, error };
              return outcome;
            }
            refused = Math.max(refused, Math.min(batch.length, error.refused));
          }
        }
        // Stored (or refused for good) by every sink: counted once, and never written again by a later replay.
        journal.replayedTo(segment, next.value.end);
        outcome.stored += batch.length - refused;
        outcome.lost += refused + unreadable;
      }
    } finally {
      // Closes the file when the replay stops part way (a sink's outage); nothing once it was read to its end.
      reading.return(false);
    }
    // Not readable now, at its start or part way: kept (the journal said why), and a later replay goes on from what
    // was stored; the files after it are not held up.
    if (whole) journal.discard(segment);
  }
  return outcome;
}
