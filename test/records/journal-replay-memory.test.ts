import { closeSync, mkdtempSync, openSync, rmSync, utimesSync, writeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/records/call-record.ts';
import { lineBatches } from '../../src/records/journal-lines.ts';
import type { RecordSink } from '../../src/records/sink.ts';
import { journaledQueueIn } from './journaled-queue.ts';
import { makeRecord } from './make-record.ts';

/** A journal file a killed process left while its store stalled can hold the journal's whole 64 MB. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-replay-memory-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const leftover = `999999998-0badf00d-0@${encodeURIComponent(hostname())}.jsonl`;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const liveHeap = () => {
  collect();
  return process.memoryUsage().heapUsed;
};

describe('replaying a large journal file', () => {
  it('reads it a chunk at a time: the heap holds a batch, not the file', async () => {
    const path = join(dir, leftover);
    const record = () => makeRecord({ input_messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
    const lineBytes = JSON.stringify(record()).length + 1;
    const count = Math.ceil((40 * 1024 * 1024) / lineBytes);
    const fd = openSync(path, 'w');
    for (let start = 0; start < count; start += 1000) {
      let block = '';
      for (let index = start; index < Math.min(count, start + 1000); index++) block += `${JSON.stringify(record())}\n`;
      writeSync(fd, block);
    }
    closeSync(fd);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(path, minuteAgo, minuteAgo);

    let stored = 0;
    let batches = 0;
    let highest = 0;
    const sink: RecordSink = {
      write(records: CallRecord[]) {
        stored += records.length;
        if (batches++ % 100 === 0) highest = Math.max(highest, liveHeap());
      },
    };
    const before = liveHeap();
    const { queue } = journaledQueueIn(dir, sink);
    await queue.flush();
    expect(stored).toBe(count);
    // Read whole, the file's 40 MB of text and its lines stay live through the replay.
    expect((highest - before) / 1024 / 1024).toBeLessThan(16);
    await queue.close();
  });
});

describe('lineBatches', () => {
  it('gives every line once, in order, whatever the chunks cut: lines and UTF-8 characters across chunks', () => {
    const lines = ['{"a":"é"}', '{"b":"日本語"}', '', '{"c":"🙂🙂"}', '{"d":1}'];
    const path = join(dir, 'lines.jsonl');
    const text = `${lines.join('\n')}\n{"torn":`;
    const fd = openSync(path, 'w');
    writeSync(fd, text);
    closeSync(fd);
    const size = Buffer.byteLength(text);
    for (const chunkBytes of [1, 2, 3, 5, 7, 64, 1 << 20]) {
      const read = [...lineBatches(path, 2, 0, chunkBytes)];
      expect(read.every((batch) => batch.lines.length <= 2)).toBe(true);
      expect(read.flatMap((batch) => batch.lines)).toEqual([...lines.filter((line) => line !== ''), '{"torn":']);
      expect(read.at(-1)!.end).toBe(size);
      // From any batch's end, the lines after it, and nothing before.
      for (const [index, batch] of read.entries())
        expect([...lineBatches(path, 2, batch.end, chunkBytes)].flatMap((after) => after.lines)).toEqual(
          read.slice(index + 1).flatMap((after) => after.lines),
        );
    }
    expect([...lineBatches(join(dir, 'gone.jsonl'), 2)]).toEqual([]);
  });
});
