import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SpendStoreFullError } from '../../src/budgets/spend-store.ts';
import { StorageUnavailableError } from '../../src/errors.ts';
import { type CounterAsk, isMessage } from '../../src/server/cluster/messages.ts';
import { PrimaryCounters } from '../../src/server/cluster/primary-counters.ts';
import { type PrimaryChannel, WorkerCounters } from '../../src/server/cluster/worker-counters.ts';
import { KeyConcurrency } from '../../src/server/key-concurrency.ts';

/**
 * The counters of `serve --workers` between processes: each worker's `WorkerCounters` asks the one
 * `PrimaryCounters`, here over a channel that delivers each message on a later turn, serialised as Node's IPC
 * serialises it (JSON), so two workers interleave as real ones do. The real processes are in
 * serve-workers-*.test.ts.
 */
class Channel extends EventEmitter implements PrimaryChannel {
  connected = true;
  /** Messages the worker sent (each an IPC write and read). */
  sent = 0;
  readonly worker: number;
  readonly primary: PrimaryCounters;
  constructor(worker: number, primary: PrimaryCounters) {
    super();
    this.worker = worker;
    this.primary = primary;
  }
  /** An IPC write that fails (the primary killed): its error goes to the callback, as Node reports it. */
  failWrites: Error | undefined;
  send(message: unknown, done?: (error: Error | null) => void): boolean {
    if (this.failWrites) {
      // Without a callback Node emits it on `process`: with no listener, an uncaught exception that ends the worker.
      const failed = this.failWrites;
      setImmediate(() => (done ? done(failed) : this.emit('error', failed)));
      return false;
    }
    this.sent += 1;
    const sent = JSON.parse(JSON.stringify(message)) as unknown;
    setImmediate(async () => {
      if (!isMessage<CounterAsk>(sent, 'counters')) return;
      const answer = await this.primary.answer(this.worker, sent);
      if (this.connected) this.emit('message', JSON.parse(JSON.stringify(answer)));
    });
    return true;
  }
  disconnect(): void {
    this.connected = false;
    this.emit('disconnect');
  }
}

function cluster(maxTracked?: number) {
  const primary = new PrimaryCounters(maxTracked);
  const channels = [new Channel(1, primary), new Channel(2, primary)];
  const [one, two] = channels.map((channel) => new WorkerCounters(channel)) as [WorkerCounters, WorkerCounters];
  return { primary, channels, one, two };
}

describe('the counters of serve --workers', () => {
  it('one token bucket for every worker: what one takes the other cannot', async () => {
    const { one, two } = cluster();
    const perMs = 3 / 60_000;
    const taken = await Promise.all([one.take('key', 3, perMs), two.take('key', 3, perMs), one.take('key', 3, perMs)]);
    expect(taken.map((take) => take.taken)).toEqual([true, true, true]);
    const refused = await two.take('key', 3, perMs);
    expect(refused.taken).toBe(false);
    expect(refused.tokens).toBeLessThan(1);
    // Another bucket, another capacity, given by the caller.
    expect((await two.take('other', 1, perMs)).taken).toBe(true);
  });

  it("a hold by one worker refuses the other until it is settled; a charge is everyone's spend", async () => {
    const { one, two } = cluster();
    const slot = [{ slot: 'inflight\u0000key', limit: 1, amount: 1 }];
    expect(await one.reserve('call-1', slot, 60_000)).toBeUndefined();
    expect(await two.reserve('call-2', slot, 60_000)).toEqual({ index: 0, spent: 0, held: 1 });
    await one.settle('call-1', slot, []);
    expect(await two.reserve('call-2', slot, 60_000)).toBeUndefined();

    const budget = [{ slot: 'trace:t1', limit: 0.5, amount: 0.2 }];
    expect(await one.reserve('call-3', budget, 60_000)).toBeUndefined();
    await one.settle('call-3', budget, [{ slot: 'trace:t1', amount: 0.5, ttlMs: 60_000 }]);
    expect(await two.spent('trace:t1')).toBe(0.5);
    expect(await two.reserve('call-4', budget, 60_000)).toEqual({ index: 0, spent: 0.5, held: 0 });
  });

  it("a worker that died gives its holds back at once, not after their hold time; the others' stay", async () => {
    const { primary, one, two } = cluster();
    const slot = [{ slot: 'inflight\u0000key', limit: 2, amount: 1 }];
    expect(await one.reserve('dying', slot, 15 * 60_000)).toBeUndefined();
    expect(await two.reserve('living', slot, 15 * 60_000)).toBeUndefined();
    expect(await two.reserve('third', slot, 15 * 60_000)).toEqual({ index: 0, spent: 0, held: 2 });
    expect(primary.heldBy(1)).toBe(1);
    await primary.forgetWorker(1);
    expect(primary.heldBy(1)).toBe(0);
    expect(await two.reserve('third', slot, 15 * 60_000)).toBeUndefined();
    expect(await two.reserve('fourth', slot, 15 * 60_000)).toEqual({ index: 0, spent: 0, held: 2 });
  });

  it("keeps the memory store's refusal to forget a budget inside its window (SpendStoreFullError)", async () => {
    const { one, two } = cluster(1);
    expect(await one.reserve('a', [{ slot: 'key:a', limit: 1, amount: 0.1 }], 60_000)).toBeUndefined();
    const full = two.reserve('b', [{ slot: 'key:b', limit: 1, amount: 0.1 }], 60_000);
    await expect(full).rejects.toBeInstanceOf(SpendStoreFullError);
  });

  it('counts calls in flight when budgets inside their window fill the store: no key refused for room', async () => {
    const { one, two } = cluster(1);
    // The one slot the store keeps for a window is a budget's now.
    expect(await one.reserve('a', [{ slot: 'agent:a', limit: 1, amount: 0.1 }], 60_000)).toBeUndefined();
    const concurrency = new KeyConcurrency(1, two);
    const release = await concurrency.acquire('key');
    expect(await concurrency.current('key')).toBe(1);
    await expect(new KeyConcurrency(1, one).acquire('key')).rejects.toMatchObject({ status: 429 });
    release();
    await expect.poll(() => concurrency.current('key')).toBe(0);
    // Budgets are still refused rather than forgotten.
    await expect(two.reserve('b', [{ slot: 'agent:b', limit: 1, amount: 0.1 }], 60_000)).rejects.toBeInstanceOf(
      SpendStoreFullError,
    );
  });

  it("a worker's question read after it exited holds nothing; its charges still count", async () => {
    const { primary } = cluster();
    await primary.forgetWorker(7);
    const slot = { slot: 'inflight\u0000key', limit: 1, amount: 1 };
    const reserve = { op: 'reserve' as const, id: 'late', holds: [slot], holdMs: 15 * 60_000 };
    await primary.answer(7, { switchyard: 'counters', questions: [{ seq: 1, call: reserve }] });
    expect(primary.heldBy(7)).toBe(0);
    const check = { op: 'reserve' as const, id: 'next', holds: [slot], holdMs: 60_000 };
    const answer = await primary.answer(8, { switchyard: 'counters', questions: [{ seq: 1, call: check }] });
    expect(answer.replies).toEqual([{ seq: 1, value: null }]);
    const charge = { slot: 'agent:a', amount: 0.25, ttlMs: 60_000 };
    const settle = { op: 'settle' as const, id: 'paid', released: [], charges: [charge] };
    await primary.answer(7, { switchyard: 'counters', questions: [{ seq: 2, call: settle }] });
    const spent = await primary.answer(8, {
      switchyard: 'counters',
      questions: [{ seq: 2, call: { op: 'spent', slot: 'agent:a' } }],
    });
    expect(spent.replies).toEqual([{ seq: 2, value: 0.25 }]);
  });

  it("one message a turn: a worker's questions asked together go in one, and come back in one", async () => {
    const { channels, one, two } = cluster();
    const slot = [{ slot: 'inflight\u0000key', limit: 2, amount: 1 }];
    const perMs = 1 / 60_000;
    const asked = await Promise.all([
      one.reserve('a', slot, 60_000),
      one.take('key', 1, perMs),
      one.reserve('b', slot, 60_000),
      one.take('key', 1, perMs),
      one.reserve('c', slot, 60_000),
    ]);
    expect(asked).toEqual([
      undefined,
      { taken: true, tokens: 0 },
      undefined,
      expect.objectContaining({ taken: false }),
      {
        index: 0,
        spent: 0,
        held: 2,
      },
    ]);
    expect(channels[0]!.sent).toBe(1);
    // A settle leaves at once, not at the turn's end: the answer that gave the slot back is written after it, so the
    // client's next call, on the other worker, never finds the slot still held (a 429 for nothing).
    const settled = one.settle('a', slot, []);
    expect(channels[0]!.sent).toBe(2);
    await Promise.all([settled, one.settle('b', slot, [])]);
    expect(channels[0]!.sent).toBe(3);
    expect(await two.reserve('d', slot, 60_000)).toBeUndefined();
  });

  it('once the primary is gone, every question fails as the store being unavailable (503), none hangs', async () => {
    const { channels, one } = cluster();
    const asked = one.take('key', 1, 1);
    channels[0]!.disconnect();
    await expect(asked).rejects.toBeInstanceOf(StorageUnavailableError);
    const later = one.spent('slot');
    await expect(later).rejects.toMatchObject({ component: 'primary', status: 503 });
  });

  it('a write to a primary that died fails the questions it carried (503), never the worker', async () => {
    const { channels, one } = cluster();
    channels[0]!.failWrites = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    await expect(one.take('key', 1, 1)).rejects.toMatchObject({ component: 'primary', status: 503 });
    await expect(one.settle('call', [], [])).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('a malformed message (questions not a list, a question not an object) is answered, not rejected', async () => {
    const primary = new PrimaryCounters();
    const bad = [
      { switchyard: 'counters', questions: 'none' },
      { switchyard: 'counters', questions: [null, 7] },
    ] as unknown as CounterAsk[];
    for (const ask of bad) await expect(primary.answer(1, ask)).resolves.toMatchObject({ switchyard: 'counters' });
  });
});
