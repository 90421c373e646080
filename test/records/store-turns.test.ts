import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordJournal, RecordQueue, SqliteSink } from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

/**
 * node:sqlite writes synchronously, and an `await` between two batches lets nothing else in: a drain or a replay of
 * many batches gives the event loop a turn once it has held it a millisecond. Each test queues other work (an
 * immediate) behind the one that starts the writing, and reads how many records were stored when it ran.
 */
const records = 32 * 40;
let dir: string;
let sink: SqliteSink;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-store-turns-'));
  sink = new SqliteSink(join(dir, 'calls.sqlite'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const stored = () => Number(sink.query('SELECT count(*) AS n FROM calls')[0]!.n);
const storedWhenOtherWorkRuns = () => new Promise<number>((resolve) => setImmediate(() => resolve(stored())));

describe('records written into SQLite batch after batch', () => {
  it('a drain of many batches lets other work run before the last is stored', async () => {
    const queue = new RecordQueue({ sinks: [sink], batchSize: 32, flushIntervalMs: 600_000 });
    for (let index = 0; index < records; index++) queue.enqueue(makeRecord({ createdAt: Date.now() + index }));
    // Queued after the drain the full batch scheduled.
    const storedThen = storedWhenOtherWorkRuns();
    await queue.flush();
    expect(await storedThen).toBeGreaterThan(0);
    expect(await storedThen).toBeLessThan(records);
    expect(stored()).toBe(records);
    await queue.close();
  });

  it('so does the replay of a large journal file a killed process left', async () => {
    // A file left by a process that no longer runs (no pid is that high), as a kill during a store's outage leaves.
    const lines = Array.from({ length: records }, (_, index) => JSON.stringify(makeRecord({ createdAt: index })));
    writeFileSync(join(dir, `999999999-0badf00d-0@${encodeURIComponent(hostname())}.jsonl`), `${lines.join('\n')}\n`);
    const journal = new RecordJournal({ dir, sinks: [sink] });
    const queue = new RecordQueue({ sinks: [sink], journal, batchSize: 32, flushIntervalMs: 600_000 });
    const storedThen = storedWhenOtherWorkRuns();
    await queue.flush();
    expect(await storedThen).toBeLessThan(records);
    expect(stored()).toBe(records);
    expect(queue.stats).toMatchObject({ written: records, failed: 0 });
    await queue.close();
  });
});
