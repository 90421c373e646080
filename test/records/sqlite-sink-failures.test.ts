import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { type CallRecord, RecordQueue, RecordsRefusedError, SqliteSink } from '../../src/records/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';
import { makeRecord } from './make-record.ts';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-sqlite-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newSink = () => new SqliteSink(join(dir, `calls-${++files}.sqlite`));
const count = (sink: SqliteSink) => sink.query('SELECT count(*) AS n FROM calls')[0]!.n;

describe('one bad record never drops others', () => {
  it('SqliteSink stores the other rows of a batch and reports the refused one', async () => {
    const sink = newSink();
    const records = Array.from({ length: 33 }, (_, index) => makeRecord({ agent_id: `agent-${index}` }));
    // A record from code that skipped buildCallRecord: an object where a column wants text.
    records[7] = { ...records[7]!, trace_id: { nested: true } as unknown as string };
    let thrown: unknown;
    try {
      await sink.write(records);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RecordsRefusedError);
    expect(thrown).toMatchObject({
      refused: 1,
      message: expect.stringMatching(/^1 of 33 call records could not be stored: /),
    });
    expect(count(sink)).toBe(32);
    expect(sink.query('SELECT count(*) AS n FROM calls WHERE agent_id = ?', 'agent-7')[0]!.n).toBe(0);
    sink.close();
  });

  it('the queue counts the one refused row as failed and the others as written', async () => {
    const sink = newSink();
    const errors: unknown[] = [];
    const queue = new RecordQueue({
      sinks: [sink],
      batchSize: 32,
      flushIntervalMs: 60_000,
      onError: (error) => errors.push(error),
    });
    const records: CallRecord[] = Array.from({ length: 32 }, () => makeRecord());
    records[3] = { ...records[3]!, metadata: { big: 10n } as unknown as Record<string, string> };
    for (const record of records) queue.enqueue(record);
    await queue.flush();
    expect(queue.stats).toMatchObject({ written: 31, failed: 1 });
    expect(errors).toHaveLength(1);
    expect(count(sink)).toBe(31);
    await queue.close();
  });

  it('a request failing validation with a non-string metadata.trace_id costs no other call its record', async () => {
    const sink = newSink();
    const gateway = createGateway({
      catalog: testCatalog,
      mock: true,
      records: { sinks: [sink], batchSize: 1000, flushIntervalMs: 60_000 },
    });
    const calls = Array.from({ length: 32 }, (_, index) =>
      gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: `hi ${index}` }],
        metadata: { trace_id: 'batch' },
      }),
    );
    // Its refusal awaited from the start: it may come before the other calls' answers.
    const invalid = expect(
      gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { trace_id: { injected: 1 }, agent_id: 'odd' } as never,
      }),
    ).rejects.toMatchObject({ status: 400, param: 'metadata.trace_id' });
    await Promise.all(calls);
    await invalid;
    await gateway.flush();
    expect(gateway.recordStats).toMatchObject({ written: 33, failed: 0 });
    expect(count(sink)).toBe(33);
    const [refused] = sink.query("SELECT trace_id, agent_id, status, record FROM calls WHERE status = 'error'");
    expect(refused).toMatchObject({ trace_id: null, agent_id: 'odd', status: 'error' });
    expect(JSON.parse(refused!.record as string).warnings).toContainEqual(
      expect.objectContaining({ code: 'metadata_dropped' }),
    );
    await gateway.close();
  });
});

describe('a full database is loud', () => {
  it('SqliteSink throws SQLite\'s "database or disk is full", not the failed ROLLBACK', async () => {
    const sink = newSink();
    await sink.write([makeRecord()]);
    // A real SQLite limit: the file may not grow past its current pages.
    const pages = sink.query('PRAGMA page_count')[0]!.page_count as number;
    sink.query(`PRAGMA max_page_count = ${pages}`);
    const big = Array.from({ length: 20 }, () => makeRecord({ input: { text: 'x'.repeat(20_000) } }));
    await expect(sink.write(big)).rejects.toThrow(/database or disk is full/);
    // Still usable: nothing half-written, and a write that fits goes through once there is room.
    expect(count(sink)).toBe(1);
    sink.query(`PRAGMA max_page_count = ${pages * 1000}`);
    await sink.write(big);
    expect(count(sink)).toBe(21);
    sink.close();
  });

  it('through a gateway: every call is answered, the lost records are counted, the real error reported', async () => {
    const sink = newSink();
    const errors: unknown[] = [];
    const gateway = createGateway({
      catalog: testCatalog,
      mock: true,
      records: { sinks: [sink], batchSize: 10, flushIntervalMs: 60_000, onError: (error) => errors.push(error) },
    });
    await gateway.createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'fits' }] });
    await gateway.flush();
    const pages = sink.query('PRAGMA page_count')[0]!.page_count as number;
    sink.query(`PRAGMA max_page_count = ${pages}`);
    for (let index = 0; index < 30; index++) {
      const answer = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'y'.repeat(50_000) }],
      });
      expect(answer.choices[0]!.message.content).toBeTruthy();
    }
    await gateway.flush();
    expect(gateway.recordStats).toMatchObject({ written: 1, failed: 30, queued: 0 });
    // Reported once (the first failure; then at most once a minute), with SQLite's own words.
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/database or disk is full/);
    await gateway.close();
  });
});
