import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import type { CallRecord } from './call-record.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'The record journal (records.journal)');

/** What a replay reads of a journal file at once. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * A journal file's lines, `batchSize` at a time, read a chunk at a time: a file a killed process left while its store
 * stalled may hold the journal's whole `maxBytes`, and the replay holds a chunk and a batch of it, never the file
 * (read whole, a 40 MB file kept 44 MB of heap live through its replay). Empty lines are skipped; a last line
 * without its newline (torn) is given as it is, for `parseLines` to count. A file gone (ENOENT: another process
 * replayed it) has no lines; any other failure to read throws, part way or not.
 */
export function* lineBatches(path: string, batchSize: number, chunkBytes = READ_CHUNK_BYTES): Generator<string[]> {
  const fs = nodeFs();
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const chunk = new Uint8Array(chunkBytes);
    // A character cut by a chunk's end is completed by the next chunk's bytes.
    const decoder = new TextDecoder('utf-8');
    let carried = '';
    let batch: string[] = [];
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, chunkBytes, null);
      const text = carried + decoder.decode(chunk.subarray(0, read), { stream: read > 0 });
      const lines = text.split('\n');
      carried = read > 0 ? lines.pop()! : '';
      for (const line of lines) {
        if (line === '') continue;
        batch.push(line);
        if (batch.length < batchSize) continue;
        yield batch;
        batch = [];
      }
      if (read === 0) break;
    }
    if (batch.length > 0) yield batch;
  } finally {
    fs.closeSync(fd);
  }
}

/** The records of journal lines; a line that does not parse (torn by a power loss) is skipped and counted. */
export function parseLines(lines: readonly string[]): { records: CallRecord[]; unreadable: number } {
  const records: CallRecord[] = [];
  let unreadable = 0;
  for (const line of lines) {
    try {
      records.push(JSON.parse(line) as CallRecord);
    } catch {
      unreadable += 1;
    }
  }
  return { records, unreadable };
}
