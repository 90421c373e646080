import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CallbackSink,
  type CallRecord,
  isCallStore,
  JsonlFileSink,
  MemorySink,
  RecordQueue,
} from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

const directory = await mkdtemp(join(tmpdir(), 'switchyard-records-'));
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('MemorySink', () => {
  it('keeps the newest records when past its capacity', async () => {
    const sink = new MemorySink({ capacity: 3 });
    const records = Array.from({ length: 7 }, () => makeRecord());
    await sink.write(records.slice(0, 2));
    expect(sink.records()).toEqual(records.slice(0, 2));
    await sink.write(records.slice(2));
    expect(sink.records()).toEqual(records.slice(4));
    sink.clear();
    expect(sink.records()).toEqual([]);
  });

  it('defaults to 10_000 records and is a call store', () => {
    expect(new MemorySink().capacity).toBe(10_000);
    expect(isCallStore(new MemorySink())).toBe(true);
    expect(isCallStore(new CallbackSink(() => {}))).toBe(false);
  });
});

describe('JsonlFileSink', () => {
  it('appends one JSON record per line, creating the directories', async () => {
    const path = join(directory, 'nested', 'deeper', 'calls.jsonl');
    const sink = new JsonlFileSink(path);
    const records = Array.from({ length: 5 }, (_, index) =>
      makeRecord({ agent_id: `a${index}`, input: { text: 'line\nbreak "quoted"' } }),
    );
    await sink.write(records.slice(0, 2));
    await sink.write(records.slice(2));
    await sink.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line) as CallRecord)).toEqual(records);
  });

  it('keeps batches whole when written concurrently, and appends to an existing file', async () => {
    const path = join(directory, 'concurrent.jsonl');
    const sink = new JsonlFileSink(path);
    const batches = Array.from({ length: 20 }, (_, batch) =>
      Array.from({ length: 10 }, () => makeRecord({ agent_id: `batch-${batch}` })),
    );
    await Promise.all(batches.map((batch) => sink.write(batch)));
    const again = new JsonlFileSink(path);
    await again.write([makeRecord({ agent_id: 'later' })]);
    const agents = (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as CallRecord).agent_id);
    expect(agents).toEqual([...batches.flatMap((batch) => batch.map((record) => record.agent_id)), 'later']);
  });

  it('rejects a write it cannot do (reported by the queue), then works again', async () => {
    const blocker = join(directory, 'a-file');
    await new JsonlFileSink(blocker).write([makeRecord()]);
    const sink = new JsonlFileSink(join(blocker, 'calls.jsonl'));
    await expect(sink.write([makeRecord()])).rejects.toThrow();
    const errors: unknown[] = [];
    const queue = new RecordQueue({ sinks: [sink], onError: (error) => errors.push(error) });
    queue.enqueue(makeRecord());
    await queue.close();
    expect(errors).toHaveLength(1);
    expect(queue.failed).toBe(1);
  });
});

describe('CallbackSink', () => {
  it('hands each record to the function, in order, awaiting it', async () => {
    const seen: string[] = [];
    const sink = new CallbackSink(async (record) => {
      // A turn of the event loop: the next record would overtake this one were the function not awaited.
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(record.id);
    });
    const records = Array.from({ length: 4 }, () => makeRecord());
    await sink.write(records);
    expect(seen).toEqual(records.map((record) => record.id));
  });
});
