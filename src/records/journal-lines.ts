import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import type { CallRecord } from './call-record.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'The record journal (records.journal)');

/** What a replay reads of a journal file at once. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Lines of a journal file, and the file's offset just past the last of them: where a replay goes on from. */
export interface LineBatch {
  lines: string[];
  end: number;
}

const NEWLINE = 0x0a;

/**
 * A journal file's lines from byte `from`, `batchSize` at a time, read a chunk at a time: a file a killed process
 * left while its store stalled may hold the journal's whole `maxBytes`, and the replay holds a chunk and a batch of
 * it, never the file (read whole, a 40 MB file kept 44 MB of heap live through its replay). Lines are cut at their
 * newline byte (never part of a UTF-8 character), so each batch's `end` is exact. Empty lines are skipped; a last
 * line without its newline (torn) is given as it is, for `parseLines` to count. A file gone (ENOENT: another process
 * replayed it) has no lines; any other failure to read throws, part way or not.
 */
export function* lineBatches(
  path: string,
  batchSize: number,
  from = 0,
  chunkBytes = READ_CHUNK_BYTES,
): Generator<LineBatch> {
  const fs = nodeFs();
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const decoder = new TextDecoder('utf-8');
    const chunk = new Uint8Array(chunkBytes);
    // The bytes of a line not ended yet, from the file's offset `at`.
    let carried = new Uint8Array(0);
    let at = from;
    let batch: string[] = [];
    let batchEnd = from;
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, chunkBytes, at + carried.length);
      if (read === 0) break;
      const bytes = carried.length === 0 ? chunk.subarray(0, read) : joined(carried, chunk.subarray(0, read));
      let start = 0;
      for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
        if (newline > start) batch.push(decoder.decode(bytes.subarray(start, newline)));
        start = newline + 1;
        batchEnd = at + start;
        if (batch.length < batchSize) continue;
        yield { lines: batch, end: batchEnd };
        batch = [];
      }
      carried = bytes.slice(start);
      at += start;
    }
    if (carried.length > 0) {
      batch.push(decoder.decode(carried));
      batchEnd = at + carried.length;
    }
    if (batch.length > 0) yield { lines: batch, end: batchEnd };
  } finally {
    fs.closeSync(fd);
  }
}

function joined(head: Uint8Array, tail: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(head.length + tail.length);
  bytes.set(head);
  bytes.set(tail, head.length);
  return bytes;
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
