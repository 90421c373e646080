import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/records/call-record.ts';
import { RecordJournal } from '../../src/records/record-journal.ts';
import { RecordQueue } from '../../src/records/record-queue.ts';
import { MemorySink } from '../../src/records/sinks/memory-sink.ts';
import { makeRecord } from './make-record.ts';

/**
 * What a dead process left is replayed once, however many journals start on its directory: the workers of
 * `serve --workers` all start on one. Each replayed it, counting its records once each (records_written N times over),
 * and a stream's open record from one replay could land after its real one from another.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-journal-claims-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const host = encodeURIComponent(hostname());
const DEAD = '999999999-0badf00d';

/** A dead process's files: a stream's open record, then (a second later) the file holding its real one. */
function deadProcessFiles(): { open: CallRecord; real: CallRecord } {
  const open = makeRecord({ status: 'error' });
  const real = { ...open, status: 'ok' as const };
  writeFileSync(join(dir, `${DEAD}-0-open@${host}.jsonl`), `${JSON.stringify(open)}\n`);
  writeFileSync(join(dir, `${DEAD}-1@${host}.jsonl`), `${JSON.stringify(real)}\n`);
  const earlier = new Date(Date.now() - 60_000);
  utimesSync(join(dir, `${DEAD}-0-open@${host}.jsonl`), earlier, earlier);
  return { open, real };
}

function startJournal(sink: MemorySink) {
  const journal = new RecordJournal({ dir, sinks: [sink], onError: () => {} });
  const queue = new RecordQueue({ sinks: [sink], journal, flushIntervalMs: 600_000, onError: () => {} });
  return { journal, queue };
}

describe("a dead process's journal files, with several journals starting on the directory", () => {
  it('are taken by the first journal alone: replayed once, the real record last', async () => {
    const { real } = deadProcessFiles();
    const [oneSink, twoSink] = [new MemorySink(), new MemorySink()];
    const one = startJournal(oneSink);
    const two = startJournal(twoSink);
    expect(one.journal.pendingRecords).toBe(2);
    expect(two.journal.pendingRecords).toBe(0);
    await Promise.all([one.queue.flush(), two.queue.flush()]);
    expect(oneSink.records()).toEqual([real]);
    expect(twoSink.records()).toEqual([]);
    expect(one.queue.stats.written + two.queue.stats.written).toBe(2);
    expect(readdirSync(dir).filter((name) => name.startsWith(DEAD))).toEqual([]);
    await Promise.all([one.queue.close(), two.queue.close()]);
  });

  it('are skipped while another live journal holds their claim, and taken over from one that died', async () => {
    deadProcessFiles();
    // Pid 1 runs; the token is not ours, so it cannot be a journal of this process.
    writeFileSync(join(dir, `${DEAD}@${host}.claim`), '1-feedface');
    const sink = new MemorySink();
    const skipped = startJournal(sink);
    expect(skipped.journal.pendingRecords).toBe(0);
    await skipped.queue.close();
    writeFileSync(join(dir, `${DEAD}@${host}.claim`), '999999998-feedface');
    const taking = startJournal(sink);
    expect(taking.journal.pendingRecords).toBe(2);
    await taking.queue.close();
    expect(sink.records().map((record) => record.status)).toEqual(['ok']);
    expect(readdirSync(dir)).toEqual([`alive@${host}`]);
  });
});

describe('files another machine left in the directory', () => {
  const elsewhere = (sequence: number) => `7-0badf00d-${sequence}@container-a1b2.jsonl`;
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

  it("are replayed once that machine has not marked itself alive for a minute: a container's successor", async () => {
    const record = makeRecord();
    writeFileSync(join(dir, elsewhere(0)), `${JSON.stringify(record)}\n`);
    writeFileSync(join(dir, 'alive@container-a1b2'), '');
    utimesSync(join(dir, 'alive@container-a1b2'), minutesAgo(5), minutesAgo(5));
    const sink = new MemorySink();
    const { queue } = startJournal(sink);
    await queue.close();
    expect(sink.records()).toEqual([record]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
  });

  it('are left alone while it marks itself alive, or, marking nothing (an earlier version), while new', async () => {
    writeFileSync(join(dir, elsewhere(0)), `${JSON.stringify(makeRecord())}\n`);
    writeFileSync(join(dir, 'alive@container-a1b2'), '');
    const sink = new MemorySink();
    await startJournal(sink).queue.close();
    rmSync(join(dir, 'alive@container-a1b2'));
    await startJournal(sink).queue.close();
    expect(sink.records()).toEqual([]);
    // Unmarked and old: gone.
    utimesSync(join(dir, elsewhere(0)), minutesAgo(5), minutesAgo(5));
    await startJournal(sink).queue.close();
    expect(sink.records()).toHaveLength(1);
  });

  it('marks this machine alive in the directory while a journal is open', async () => {
    const { queue } = startJournal(new MemorySink());
    const alive = readdirSync(dir).filter((name) => name.startsWith('alive@'));
    expect(alive).toEqual([`alive@${host}`]);
    await queue.close();
  });
});

describe('the files of several dead processes, claimed by one journal', () => {
  it('are kept whole, each within its own bound: not cut to one journal’s', async () => {
    // Three workers of a restarted `serve --workers 3`, each left 3 records, within the bound each had.
    const lines = () => Array.from({ length: 3 }, () => `${JSON.stringify(makeRecord({ status: 'ok' }))}\n`).join('');
    let largest = 0;
    for (const owner of ['999999991-0badf001', '999999992-0badf002', '999999993-0badf003']) {
      const text = lines();
      largest = Math.max(largest, Buffer.byteLength(text));
      writeFileSync(join(dir, `${owner}-0@${host}.jsonl`), text);
    }
    const sink = new MemorySink();
    const journal = new RecordJournal({ dir, sinks: [sink], maxBytes: largest + 100, onError: () => {} });
    const queue = new RecordQueue({ sinks: [sink], journal, flushIntervalMs: 600_000, onError: () => {} });
    expect(journal.droppedAtStart).toBe(0);
    expect(journal.pendingRecords).toBe(9);
    await queue.flush();
    expect(sink.records()).toHaveLength(9);
    await queue.close();
  });
});
