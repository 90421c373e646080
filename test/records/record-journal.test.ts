import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import {
  type CallRecord,
  MemorySink,
  RecordJournal,
  type RecordSink,
  RecordsRefusedError,
} from '../../src/records/index.ts';
import { journaledQueueIn } from './journaled-queue.ts';
import { makeRecord } from './make-record.ts';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A sink that fails as a whole (an outage) while `down`, and keeps what it stores. */
class OutageSink extends MemorySink {
  down = true;
  override async write(records: CallRecord[]): Promise<void> {
    if (this.down) throw new Error('connection refused');
    await super.write(records);
  }
}

/** A journaled queue whose flushes come only when the test asks (no timer, no full batch). */
const journaledQueue = (sink: RecordSink, maxBytes?: number) => journaledQueueIn(dir, sink, { maxBytes });

const ids = (records: CallRecord[]) => records.map((record) => record.id).sort();
/** The journal's files, without the mark of this machine being alive (`alive@<host>`). */
const files = () => readdirSync(dir).filter((name) => !name.startsWith('alive@'));
/** The record lines in the journal's files (a file emptied after its flush is kept open for the next records). */
const recordsOnDisk = () =>
  files().flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean));

/** Runs journal-child.ts: it journals `count` records that are never flushed, then SIGKILLs itself. */
function killedChild(count: number): Promise<{ ids: string[]; signal: string | null }> {
  return new Promise((done, fail) => {
    const child = execFile(node, [join(import.meta.dirname, 'journal-child.ts'), dir, String(count)], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', fail);
    // `close`, not `exit`: every byte of its output read.
    child.on('close', (_code, signal) => {
      if (!stdout.trim()) fail(new Error(`the child printed nothing: ${stderr}`));
      else done({ ids: JSON.parse(stdout) as string[], signal });
    });
  });
}

describe('RecordJournal', () => {
  it('records a SIGKILLed process had queued are replayed by the next one, once, and the files removed', async () => {
    const { ids: queued, signal } = await killedChild(150);
    expect(signal).toBe('SIGKILL');
    expect(files()).toHaveLength(1);

    const sink = new MemorySink();
    const { journal, queue } = journaledQueue(sink);
    expect(journal.pendingRecords).toBe(150);
    await queue.flush();
    expect(ids(sink.records())).toEqual([...queued].sort());
    expect(queue.stats).toMatchObject({ written: 150, failed: 0, dropped: 0 });
    expect(files()).toEqual([]);
    await queue.close();
  });

  it('keeps the records of a flush the sink failed, and replays them once it is back', async () => {
    const sink = new OutageSink();
    const { queue } = journaledQueue(sink);
    const during = [makeRecord(), makeRecord(), makeRecord()];
    for (const record of during) queue.enqueue(record);
    await queue.flush();
    // Kept, not lost: the journal holds them for the replay (health must not call that a loss).
    expect(queue.stats).toMatchObject({ written: 0, failed: 0, last_loss_at: null });
    expect(files()).toHaveLength(1);

    sink.down = false;
    const after = makeRecord();
    queue.enqueue(after);
    await queue.flush();
    expect(ids(sink.records())).toEqual(ids([...during, after]));
    expect(queue.stats).toMatchObject({ written: 4, failed: 0, last_loss_at: null });
    expect(recordsOnDisk()).toEqual([]);
    await queue.close();
    expect(files()).toEqual([]);
  });

  it('does not keep rows a sink refused (bad data, not an outage): they would be refused again', async () => {
    const refusing: RecordSink = {
      write(records) {
        throw new RecordsRefusedError(1, records.length, new Error('invalid byte sequence'));
      },
    };
    const { journal, queue } = journaledQueue(refusing);
    queue.enqueue(makeRecord());
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(queue.stats).toMatchObject({ failed: 1, written: 1 });
    expect(journal.pendingRecords).toBe(0);
    expect(recordsOnDisk()).toEqual([]);
    await queue.close();
    expect(files()).toEqual([]);
  });

  it('past maxBytes while the sink is down, deletes the oldest records and counts them as dropped', async () => {
    const sink = new OutageSink();
    const size = Buffer.byteLength(`${JSON.stringify(makeRecord())}\n`);
    const { journal, queue } = journaledQueue(sink, size * 5);
    const flushes = [0, 1, 2].map(() => [makeRecord(), makeRecord(), makeRecord()]);
    for (const batch of flushes) {
      for (const record of batch) queue.enqueue(record);
      await queue.flush();
    }
    expect(queue.stats.dropped).toBe(6);
    expect(journal.pendingRecords).toBe(3);

    sink.down = false;
    await queue.flush();
    expect(ids(sink.records())).toEqual(ids(flushes[2]!));
    await queue.close();
  });

  it('flush after flush, appends to one file, emptied once its records are stored: none made or deleted', async () => {
    const sink = new OutageSink();
    sink.down = false;
    const { queue } = journaledQueue(sink);
    const names = new Set<string>();
    for (let flush = 0; flush < 6; flush++) {
      const record = makeRecord();
      queue.enqueue(record);
      await queue.durable();
      expect(recordsOnDisk().map((line) => (JSON.parse(line) as CallRecord).id)).toEqual([record.id]);
      for (const name of files()) names.add(name);
      await queue.flush();
      expect(recordsOnDisk()).toEqual([]);
    }
    expect(names.size).toBe(1);
    expect(sink.records()).toHaveLength(6);

    // A failed flush closes its file and keeps it to replay; the next records go to another.
    sink.down = true;
    const kept = makeRecord();
    queue.enqueue(kept);
    await queue.flush();
    expect(recordsOnDisk()).toHaveLength(1);
    sink.down = false;
    const next = makeRecord();
    queue.enqueue(next);
    await queue.flush();
    expect(ids(sink.records()).filter((id) => id === kept.id || id === next.id)).toEqual(ids([kept, next]));
    expect(recordsOnDisk()).toEqual([]);
    await queue.close();
    expect(files()).toEqual([]);
  });

  it('never replays the file of a journal still open in this process, on the same directory', async () => {
    const first = journaledQueue(new MemorySink());
    first.queue.enqueue(makeRecord());
    const second = journaledQueue(new MemorySink());
    expect(second.journal.pendingRecords).toBe(0);
    await second.queue.close();
    await first.queue.close();
    expect(files()).toEqual([]);
  });

  it('replays the lines of a file torn by a power loss, and counts the torn one as failed', async () => {
    const whole = [makeRecord(), makeRecord()];
    const path = join(dir, `999999999-0badf00d-0@${encodeURIComponent(hostname())}.jsonl`);
    writeFileSync(path, whole.map((record) => `${JSON.stringify(record)}\n`).join(''));
    appendFileSync(path, JSON.stringify(makeRecord()).slice(0, 40));
    const sink = new MemorySink();
    const { queue } = journaledQueue(sink);
    await queue.flush();
    expect(ids(sink.records())).toEqual(ids(whole));
    expect(queue.stats).toMatchObject({ written: 2, failed: 1 });
    await queue.close();
  });

  it('leaves the files of another machine alone (it cannot tell whether their writer runs)', async () => {
    const path = join(dir, '1-0badf00d-0@elsewhere.example.jsonl');
    writeFileSync(path, `${JSON.stringify(makeRecord())}\n`);
    const sink = new MemorySink();
    const { queue } = journaledQueue(sink);
    await queue.close();
    expect(sink.records()).toEqual([]);
    expect(files()).toEqual(['1-0badf00d-0@elsewhere.example.jsonl']);
  });
});

describe('a gateway with a journal', () => {
  it('has the record on disk when the answer is returned, before any later turn of the event loop', async () => {
    const sink = new MemorySink();
    const journal = new RecordJournal({ dir, sinks: [sink] });
    const gateway = createGateway({ mock: true, records: { sinks: [sink], journal, flushIntervalMs: 600_000 } });
    const answer = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const journaled = files().map((name) => readFileSync(join(dir, name), 'utf8'));
    expect(journaled.join('')).toContain(`"id":"${answer.switchyard.call_id}"`);
    await gateway.close();
    expect(sink.records().map((record) => record.id)).toEqual([answer.switchyard.call_id]);
    expect(files()).toEqual([]);
  });
});

describe('group commit', () => {
  const lines = recordsOnDisk;

  it('writes the records of one event-loop turn in one write, at its end, then settles durable()', async () => {
    const sink = new MemorySink();
    const { journal, queue } = journaledQueue(sink);
    const records = Array.from({ length: 50 }, () => makeRecord());
    for (const record of records) queue.enqueue(record);
    // Nothing written yet: the batch waits for the end of the turn, and so does every answer in it.
    expect(lines()).toEqual([]);
    expect(journal.writes).toBe(0);
    const durable = queue.durable()!;
    expect(durable).toBeInstanceOf(Promise);
    let onDiskWhenSettled: string[] = [];
    await durable.then(() => (onDiskWhenSettled = lines()));
    expect(journal.writes).toBe(1);
    expect(onDiskWhenSettled.map((line) => (JSON.parse(line) as CallRecord).id).sort()).toEqual(ids(records));
    expect(queue.durable()).toBeUndefined();
    await queue.close();
  });

  it('answers concurrent calls only once their records are on disk, many answers sharing one write', async () => {
    const sink = new MemorySink();
    const journal = new RecordJournal({ dir, sinks: [sink] });
    const gateway = createGateway({ mock: true, records: { sinks: [sink], journal, flushIntervalMs: 600_000 } });
    const calls = 40;
    const onDiskAtAnswer = await Promise.all(
      Array.from({ length: calls }, (_, index) =>
        gateway
          .createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: `call ${index}` }] })
          .then((answer) => lines().some((line) => line.includes(`"id":"${answer.switchyard.call_id}"`))),
      ),
    );
    expect(onDiskAtAnswer).toEqual(Array(calls).fill(true));
    expect(journal.writes).toBeGreaterThan(0);
    expect(journal.writes).toBeLessThan(calls / 4);
    await gateway.close();
    expect(sink.records()).toHaveLength(calls);
  });

  it('writes a record no other call can join at once, and one that arrives to a waiting batch with it', async () => {
    const journal = new RecordJournal({ dir, sinks: [new MemorySink()] });
    let alone = true;
    journal.writeAtOnceWhen(() => alone);
    journal.append(makeRecord());
    expect([journal.writes, lines().length, journal.durable()]).toEqual([1, 1, undefined]);
    alone = false;
    journal.append(makeRecord());
    alone = true;
    journal.append(makeRecord());
    expect([journal.writes, lines().length]).toEqual([1, 1]);
    await journal.durable();
    expect([journal.writes, lines().length]).toEqual([2, 3]);
    journal.close();
  });

  it('keeps a stream call’s open record until the batch holding its real record is written', () => {
    const journal = new RecordJournal({ dir, sinks: [new MemorySink()] });
    const open = journal.openCall(makeRecord())!;
    journal.append(makeRecord());
    journal.closeCall(open);
    expect(files()).toContain(open.path.split('/').pop());
    journal.commit();
    expect(files()).not.toContain(open.path.split('/').pop());
    journal.close();
  });
});
