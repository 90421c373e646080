import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CallRecord, MemorySink, RecordQueue, type RecordSink } from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

/** A sink that records each batch it gets. */
class BatchSink implements RecordSink {
  batches: CallRecord[][] = [];
  closed = false;
  write(records: CallRecord[]): void {
    this.batches.push([...records]);
  }
  close(): void {
    this.closed = true;
  }
  get count(): number {
    return this.batches.reduce((total, batch) => total + batch.length, 0);
  }
}

const failingSink: RecordSink = {
  write() {
    throw new Error('disk full');
  },
};

afterEach(() => {
  vi.useRealTimers();
});

describe('RecordQueue', () => {
  it('never writes inside enqueue: the request path only appends', () => {
    const sink = new BatchSink();
    const queue = new RecordQueue({ sinks: [sink], batchSize: 1 });
    expect(queue.enqueue(makeRecord())).toBe(true);
    expect(sink.count).toBe(0);
    expect(queue.stats.queued).toBe(1);
  });

  it('drops and counts records past maxQueued, without throwing', async () => {
    const sink = new BatchSink();
    const queue = new RecordQueue({ sinks: [sink], maxQueued: 5, batchSize: 1000, flushIntervalMs: 60_000 });
    const accepted = Array.from({ length: 8 }, () => queue.enqueue(makeRecord()));
    expect(accepted).toEqual([true, true, true, true, true, false, false, false]);
    expect(queue.dropped).toBe(3);
    await queue.flush();
    expect(sink.count).toBe(5);
    expect(queue.stats).toEqual({
      queued: 0,
      written: 5,
      dropped: 3,
      failed: 0,
      build_failed: 0,
      last_loss_at: expect.any(String),
      journal_writes: 0,
    });
  });

  it('writes in batches of batchSize as soon as a batch is full', async () => {
    const sink = new BatchSink();
    const queue = new RecordQueue({ sinks: [sink], batchSize: 10, flushIntervalMs: 60_000 });
    for (let index = 0; index < 25; index++) queue.enqueue(makeRecord());
    await new Promise((resolve) => setImmediate(resolve));
    await queue.flush();
    expect(sink.batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
  });

  it('flushes a partial batch after flushIntervalMs', async () => {
    vi.useFakeTimers();
    const sink = new BatchSink();
    const queue = new RecordQueue({ sinks: [sink], batchSize: 200, flushIntervalMs: 1000 });
    queue.enqueue(makeRecord());
    queue.enqueue(makeRecord());
    await vi.advanceTimersByTimeAsync(999);
    expect(sink.count).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(sink.batches.map((batch) => batch.length)).toEqual([2]);
  });

  it('does not keep the process alive with its timer', () => {
    const queue = new RecordQueue({ sinks: [new BatchSink()] });
    const spy = vi.spyOn(globalThis, 'setTimeout');
    queue.enqueue(makeRecord());
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    spy.mockRestore();
    void queue.close();
  });

  it('flush and close write every queued record to every sink, then close the sinks', async () => {
    const first = new BatchSink();
    const second = new MemorySink();
    const queue = new RecordQueue({ sinks: [first, second], batchSize: 7, flushIntervalMs: 60_000 });
    const records = Array.from({ length: 30 }, () => makeRecord());
    for (const record of records) queue.enqueue(record);
    await queue.close();
    expect(first.count).toBe(30);
    expect(second.records()).toEqual(records);
    expect(first.closed).toBe(true);
    expect(queue.enqueue(makeRecord())).toBe(false);
    expect(queue.stats).toEqual({
      queued: 0,
      written: 30,
      dropped: 1,
      failed: 0,
      build_failed: 0,
      last_loss_at: expect.any(String),
      journal_writes: 0,
    });
  });

  it('serialises concurrent flushes: a sink never gets two batches at once', async () => {
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    const slowSink: RecordSink = {
      async write(records) {
        active += 1;
        maxActive = Math.max(maxActive, active);
        // A turn of the event loop: time enough for any other flush to start its write, were flushes not serialised.
        await new Promise((resolve) => setImmediate(resolve));
        order.push(...records.map((record) => record.id));
        active -= 1;
      },
    };
    const queue = new RecordQueue({ sinks: [slowSink], batchSize: 3, flushIntervalMs: 60_000 });
    const records = Array.from({ length: 12 }, () => makeRecord());
    const flushes: Array<Promise<void>> = [];
    for (const record of records) {
      queue.enqueue(record);
      flushes.push(queue.flush());
    }
    await Promise.all(flushes);
    expect(maxActive).toBe(1);
    expect(order).toEqual(records.map((record) => record.id));
  });

  it('a failing sink never throws to the caller, is counted, reported once, and does not stop the others', async () => {
    const healthy = new BatchSink();
    const onError = vi.fn();
    const queue = new RecordQueue({ sinks: [failingSink, healthy], batchSize: 2, flushIntervalMs: 60_000, onError });
    for (let index = 0; index < 6; index++) expect(() => queue.enqueue(makeRecord())).not.toThrow();
    await expect(queue.flush()).resolves.toBeUndefined();
    await expect(queue.close()).resolves.toBeUndefined();
    expect(healthy.count).toBe(6);
    expect(queue.failed).toBe(6);
    expect(queue.stats.written).toBe(0);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toMatchObject({ message: 'disk full' });
    expect(onError.mock.calls[0]![1]).toBe(failingSink);
  });

  it('reports a sink again after it recovered and failed anew; survives a throwing onError', async () => {
    let broken = true;
    const flaky: RecordSink = {
      async write() {
        if (broken) throw new Error('down');
      },
    };
    const onError = vi.fn(() => {
      throw new Error('handler bug');
    });
    const queue = new RecordQueue({ sinks: [flaky], flushIntervalMs: 60_000, onError });
    queue.enqueue(makeRecord());
    await queue.flush();
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(onError).toHaveBeenCalledTimes(1);
    broken = false;
    queue.enqueue(makeRecord());
    await queue.flush();
    broken = true;
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(onError).toHaveBeenCalledTimes(2);
    expect(queue.stats).toMatchObject({ written: 1, failed: 3 });
  });

  it('reports a sink whose close fails, and still closes the others', async () => {
    const onError = vi.fn();
    const other = new BatchSink();
    const queue = new RecordQueue({
      sinks: [{ write() {}, close: () => Promise.reject(new Error('cannot close')) }, other],
      onError,
    });
    await queue.close();
    expect(other.closed).toBe(true);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('warns through process warnings when no onError is given', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const queue = new RecordQueue({ sinks: [failingSink] });
    queue.enqueue(makeRecord());
    await queue.flush();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('disk full');
    warn.mockRestore();
  });
});
