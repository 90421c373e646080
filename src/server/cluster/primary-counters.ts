import { MemorySpendStore } from '../../budgets/memory-spend-store.ts';
import type { SlotHold } from '../../budgets/spend-store.ts';
import { MemoryTokenBuckets } from '../../budgets/token-buckets.ts';
import type { CounterAnswer, CounterAsk, CounterCall, CounterQuestion, CounterReply } from './messages.ts';

/** Exited workers remembered: their last messages come within moments of the exit, and a crash loop is slow. */
const GONE_REMEMBERED = 64;

/**
 * The counters of `serve --workers`, held by the primary: the same in-memory buckets and spend store a single process
 * uses, answering every worker, so a key's rate, tokens, calls in flight and budgets are counted once for the whole
 * server. Each operation runs to its end before the next message is read (the memory stores change their maps before
 * any `await`), so two workers asking at the same moment see each other's takes and holds. The holds a worker made are
 * remembered until it settles them: a worker that dies gives them back at once (`forgetWorker`), instead of after
 * their hold time.
 */
export class PrimaryCounters {
  readonly #buckets = new MemoryTokenBuckets();
  readonly #spend: MemorySpendStore;
  /** Per worker, the holds it made and has not settled, by reservation id. */
  readonly #held = new Map<number, Map<string, SlotHold[]>>();
  /**
   * Workers that exited, the latest few: Node may hand over a worker's last messages after its `exit`, and a hold
   * taken then would have no one to give it back (a key's slot taken for `IN_FLIGHT_HOLD_MS`).
   */
  readonly #gone = new Set<number>();

  constructor(maxTracked?: number) {
    this.#spend = new MemorySpendStore(maxTracked);
  }

  /**
   * The answers to a worker's questions, in the order asked: each operation's value, or its error (by name and
   * message). Each starts before the next (the memory stores change their maps before any `await`), so they apply in
   * order, as one message each would.
   */
  async answer(worker: number, ask: CounterAsk): Promise<CounterAnswer> {
    // A message no worker of ours sends is answered all the same: a rejection here would end the primary.
    const questions: unknown[] = Array.isArray(ask.questions) ? ask.questions : [];
    const replies = await Promise.all(questions.map((question) => this.#reply(worker, question as CounterQuestion)));
    return { switchyard: 'counters', replies };
  }

  async #reply(worker: number, question: CounterQuestion): Promise<CounterReply> {
    // A question that is not one has no sequence number its worker could be waiting on: -1.
    const seq = (question as CounterQuestion | null)?.seq ?? -1;
    try {
      return { seq, value: await this.#run(worker, question.call) };
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      return { seq, error: { name, message } };
    }
  }

  /** Gives back every hold of a worker that is gone: its calls in flight ended with it. */
  async forgetWorker(worker: number): Promise<void> {
    this.#gone.add(worker);
    if (this.#gone.size > GONE_REMEMBERED) this.#gone.delete(this.#gone.values().next().value!);
    const held = this.#held.get(worker);
    this.#held.delete(worker);
    for (const [id, holds] of held ?? []) await this.#spend.settle(id, holds, []);
  }

  /** Holds still counted for `worker` (for tests and the log). */
  heldBy(worker: number): number {
    return this.#held.get(worker)?.size ?? 0;
  }

  async #run(worker: number, call: CounterCall): Promise<unknown> {
    switch (call.op) {
      case 'take':
        return this.#buckets.take(call.bucket, call.capacity, call.perMs);
      case 'peek':
        return this.#buckets.peek(call.bucket, call.capacity, call.perMs);
      case 'spent':
        return this.#spend.spent(call.slot);
      case 'reserve': {
        // Its call ended with it: nothing to hold (its settles still count: a charge is money spent).
        if (this.#gone.has(worker)) return null;
        const refusal = await this.#spend.reserve(call.id, call.holds, call.holdMs);
        if (!refusal && call.holds.some((hold) => hold.amount > 0)) this.#heldOf(worker).set(call.id, call.holds);
        return refusal ?? null;
      }
      case 'settle':
        this.#held.get(worker)?.delete(call.id);
        return this.#spend.settle(call.id, call.released, call.charges).then(() => null);
    }
  }

  #heldOf(worker: number): Map<string, SlotHold[]> {
    let held = this.#held.get(worker);
    if (!held) this.#held.set(worker, (held = new Map()));
    return held;
  }
}
