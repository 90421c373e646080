import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/records/call-record.ts';
import { parseLines } from '../../src/records/journal-lines.ts';
import { RecordJournal } from '../../src/records/record-journal.ts';
import { RecordQueue } from '../../src/records/record-queue.ts';
import { MemorySink } from '../../src/records/sinks/memory-sink.ts';
import { canMountTmpfs, fillUp } from '../helpers/tmpfs.ts';
import { journaledQueueIn } from './journaled-queue.ts';
import { makeRecord } from './make-record.ts';

/** What the journal does when its files fail it: a file it cannot read, a disk that fills mid-write. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-journal-faults-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ids = (records: CallRecord[]) => records.map((record) => record.id).sort();
/** The name of a file a process of this machine that no longer runs left. */
const leftover = (sequence: number) => `999999999-0badf00d-${sequence}@${encodeURIComponent(hostname())}.jsonl`;

function journaledQueue(sink: MemorySink) {
  const errors: string[] = [];
  return { ...journaledQueueIn(dir, sink, { onError: (error) => errors.push(String(error)) }), errors };
}

describe('a journal file that cannot be read', () => {
  it('is kept for a later replay and reported, never deleted unread; the files after it are replayed', async () => {
    const lost = [makeRecord(), makeRecord()];
    const later = [makeRecord()];
    writeFileSync(join(dir, leftover(0)), lost.map((record) => `${JSON.stringify(record)}\n`).join(''));
    writeFileSync(join(dir, leftover(1)), `${JSON.stringify(later[0])}\n`);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dir, leftover(0)), minuteAgo, minuteAgo);
    const sink = new MemorySink();
    const { journal, queue, errors } = journaledQueue(sink);
    expect(journal.pendingRecords).toBe(3);
    // Unreadable now (as with no file descriptor left, or a disk error): a directory where the file was. Root reads
    // a file of mode 0, so permissions cannot stand in for it here.
    // The journal took the files for itself (renamed into its own names): the oldest is the first pending.
    const oldest = journal.pendingSegments[0]!.path;
    rmSync(oldest);
    mkdirSync(oldest);
    await queue.flush();
    expect(ids(sink.records())).toEqual(ids(later));
    expect(readdirSync(dir).map((name) => join(dir, name))).toContain(oldest);
    expect(errors.join('\n')).toMatch(/could not be read.*kept/);
    expect(queue.stats).toMatchObject({ written: 1, failed: 0, dropped: 0 });
    // Readable again: the next flush stores its records, once.
    rmSync(oldest, { recursive: true });
    writeFileSync(oldest, lost.map((record) => `${JSON.stringify(record)}\n`).join(''));
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(sink.records()).toHaveLength(4);
    expect(ids(sink.records())).toEqual(expect.arrayContaining(ids(lost)));
    expect(readdirSync(dir).map((name) => join(dir, name))).not.toContain(oldest);
    await queue.close();
  });
});

describe('leftover files past maxBytes', () => {
  it('are deleted oldest first at start, and their records counted as dropped', async () => {
    const line = `${JSON.stringify(makeRecord())}\n`;
    for (const sequence of [0, 1, 2]) {
      writeFileSync(join(dir, leftover(sequence)), line.repeat(3));
      const age = new Date(Date.now() - (3 - sequence) * 60_000);
      utimesSync(join(dir, leftover(sequence)), age, age);
    }
    const journal = new RecordJournal({ dir, sinks: [], maxBytes: line.length * 7, onError: () => {} });
    const queue = new RecordQueue({ sinks: [], journal, onError: () => {}, onDropped: () => {} });
    expect(journal.pendingRecords).toBe(6);
    expect(queue.stats).toMatchObject({ dropped: 3, last_loss_at: expect.any(String) });
    await queue.close();
  });
});

describe('a flush whose store fails part way', () => {
  it('counts each record once: the batches stored before the outage are not counted again by the replay', async () => {
    let writes = 0;
    const sink = new MemorySink();
    const failing = Object.assign(Object.create(sink) as MemorySink, {
      async write(records: CallRecord[]) {
        writes += 1;
        // The second batch of the first flush meets an outage; every later write works.
        if (writes === 2) throw new Error('connection reset');
        await sink.write(records);
      },
    });
    const journal = new RecordJournal({ dir, sinks: [failing], onError: () => {} });
    const queue = new RecordQueue({
      sinks: [failing],
      batchSize: 2,
      flushIntervalMs: 600_000,
      journal,
      onError: () => {},
    });
    const records = Array.from({ length: 4 }, () => makeRecord());
    for (const record of records) queue.enqueue(record);
    await queue.flush();
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(ids(sink.records())).toHaveLength(5);
    expect(queue.stats).toMatchObject({ written: 5, failed: 0, dropped: 0 });
    await queue.close();
  });
});

describe('a replay its store cut short', () => {
  it('goes on from where it stopped: no record of the file is written twice', async () => {
    const lines = Array.from({ length: 10 }, () => makeRecord());
    writeFileSync(join(dir, leftover(0)), lines.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dir, leftover(0)), minuteAgo, minuteAgo);
    const written = new Map<string, number>();
    let writes = 0;
    const sink = new MemorySink();
    const counting = Object.assign(Object.create(sink) as MemorySink, {
      async write(records: CallRecord[]) {
        writes += 1;
        // The replay's third batch meets an outage; every later write works.
        if (writes === 3) throw new Error('connection reset');
        for (const record of records) written.set(record.id, (written.get(record.id) ?? 0) + 1);
        await sink.write(records);
      },
    });
    const journal = new RecordJournal({ dir, sinks: [counting], onError: () => {} });
    const queue = new RecordQueue({
      sinks: [counting],
      batchSize: 2,
      flushIntervalMs: 600_000,
      journal,
      onError: () => {},
    });
    await queue.flush();
    expect(journal.pendingRecords).toBe(10);
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(journal.pendingSegments).toEqual([]);
    expect(written.size).toBe(11);
    expect([...written.values()].filter((count) => count > 1)).toEqual([]);
    expect(queue.stats).toMatchObject({ written: 11, failed: 0, dropped: 0 });
    await queue.close();
  });
});

describe('a record the journal cannot write', () => {
  it('is refused uncounted: only the record its caller queues instead counts as build_failed', () => {
    const { queue } = journaledQueue(new MemorySink());
    const unwritable = { ...makeRecord(), metadata: {} } as unknown as Record<string, unknown>;
    (unwritable.metadata as Record<string, unknown>).self = unwritable;
    expect(() => queue.enqueue(unwritable as unknown as CallRecord, true)).toThrow(/circular/);
    expect(queue.stats.build_failed).toBe(0);
    expect(queue.enqueue(makeRecord(), true)).toBe(true);
    expect(queue.stats).toMatchObject({ build_failed: 1, queued: 1 });
  });
});

describe('flushes during a store outage, with a kept file to replay', () => {
  it('asked together, run as one; asked again at once, do not read and write the kept file again', async () => {
    writeFileSync(join(dir, leftover(0)), `${JSON.stringify(makeRecord())}\n`.repeat(100));
    let attempts = 0;
    const down: MemorySink = Object.assign(new MemorySink(), {
      async write(): Promise<void> {
        attempts += 1;
        throw new Error('connection refused');
      },
    });
    const journal = new RecordJournal({ dir, sinks: [down], onError: () => {} });
    const queue = new RecordQueue({ sinks: [down], journal, flushIntervalMs: 600_000, onError: () => {} });
    // Callers that flush (GET /v1/calls, a Responses call naming a previous response) each waited behind the other.
    await Promise.all(Array.from({ length: 20 }, () => queue.flush()));
    await queue.flush();
    await queue.flush();
    expect(attempts).toBe(1);
    expect(journal.pendingRecords).toBe(100);
    await queue.close();
  });
});

describe.runIf(canMountTmpfs())('a write the disk cut short (a real full disk: a 64 kB tmpfs)', () => {
  it('is cut off the file: the next record, written once there is room, is whole on replay', async () => {
    const mount = mkdtempSync(join(tmpdir(), 'switchyard-journal-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount]);
    try {
      const errors: string[] = [];
      const journalDir = join(mount, 'journal');
      const journal = new RecordJournal({ dir: journalDir, sinks: [], onError: (error) => errors.push(String(error)) });
      journal.writeAtOnceWhen(() => true);
      const first = makeRecord();
      journal.append(first);
      fillUp(join(mount, 'filler'));
      // Longer than what is left of the file's last page: the kernel takes part of it, then the disk is full.
      const torn = makeRecord({ requested_model: 'x'.repeat(12_000) });
      journal.append(torn);
      expect(errors.join('\n')).toMatch(/short write|ENOSPC/);
      rmSync(join(mount, 'filler'));
      const after = makeRecord();
      journal.append(after);
      journal.close();
      const replaying = new RecordJournal({ dir: journalDir, sinks: [] });
      const [segment] = replaying.pendingSegments;
      const read = parseLines(segment ? [...replaying.read(segment, 1000)].flatMap((batch) => batch.lines) : []);
      expect(read.unreadable).toBe(0);
      expect(ids(read.records)).toEqual(ids([first, after]));
      replaying.close();
    } finally {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });
});

describe('a store that fails each batch slowly', () => {
  it('is asked once a drain: the rest of the batches wait in the journal file, not each for the store', async () => {
    let writes = 0;
    let down = true;
    const sink = new MemorySink();
    const slow = Object.assign(Object.create(sink) as MemorySink, {
      async write(records: CallRecord[]) {
        writes += 1;
        if (down) throw new Error('canceling statement due to statement timeout');
        await sink.write(records);
      },
    });
    const journal = new RecordJournal({ dir, sinks: [slow], onError: () => {} });
    const queue = new RecordQueue({
      sinks: [slow],
      batchSize: 2,
      flushIntervalMs: 600_000,
      journal,
      onError: () => {},
    });
    const records = Array.from({ length: 10 }, () => makeRecord());
    for (const record of records) queue.enqueue(record);
    await queue.flush();
    // Five batches, one asked: the outage answered it, and the other four are in the kept file with it.
    expect(writes).toBe(1);
    down = false;
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(ids(sink.records())).toHaveLength(11);
    expect(queue.stats).toMatchObject({ written: 11, failed: 0, dropped: 0 });
    await queue.close();
  });
});
