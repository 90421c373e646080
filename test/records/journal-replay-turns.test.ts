import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordJournal, RecordQueue, SqliteSink } from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-replay-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a replay of a large journal file into SQLite', () => {
  it('gives the event loop a turn between batches once it has held it a millisecond', async () => {
    const records = 32 * 40;
    // A file left by a process that no longer runs (no pid is that high), as a kill during a store's outage leaves.
    const lines = Array.from({ length: records }, (_, index) => JSON.stringify(makeRecord({ createdAt: index })));
    writeFileSync(join(dir, `999999999-0badf00d-0@${encodeURIComponent(hostname())}.jsonl`), `${lines.join('\n')}\n`);
    const sink = new SqliteSink(join(dir, 'calls.sqlite'));
    const journal = new RecordJournal({ dir, sinks: [sink] });
    const queue = new RecordQueue({ sinks: [sink], journal, batchSize: 32, flushIntervalMs: 600_000 });
    const stored = () => Number(sink.query('SELECT count(*) AS n FROM calls')[0]!.n);
    const storedWhenOtherWorkRan = new Promise<number>((resolve) => setImmediate(() => resolve(stored())));
    await queue.flush();
    expect(await storedWhenOtherWorkRan).toBeLessThan(records);
    expect(stored()).toBe(records);
    expect(queue.stats).toMatchObject({ written: records, failed: 0 });
    await queue.close();
  });
});
