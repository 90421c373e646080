import type { SlotCharge, SlotHold, SlotRefusal, SpendStore } from '../../budgets/spend-store.ts';
import { SpendStoreFullError } from '../../budgets/spend-store.ts';
import type { TokenBuckets, TokenTake } from '../../budgets/token-buckets.ts';
import { StorageUnavailableError } from '../../errors.ts';
import {
  type CounterAnswer,
  type CounterAsk,
  type CounterCall,
  type CounterQuestion,
  type CounterReply,
  isMessage,
} from './messages.ts';

/** How a worker talks to its primary: Node's IPC channel of a forked process (`process`), or a test's pair. */
export interface PrimaryChannel {
  /** `sent` hears a failed write (the primary died): without it Node throws the error on `process`, uncaught. */
  send(message: unknown, sent: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  readonly connected: boolean;
}

/**
 * A worker's counters, asked of the primary of `serve --workers` (`PrimaryCounters`) over the IPC channel: the rate
 * buckets and the spend store (budgets, tokens a minute, calls in flight) of the whole server. The same operations
 * as Redis's, so the limits and the budget stage use it as they use Redis. The questions of one event-loop turn go
 * in one message, sent at the turn's end (`setImmediate`), and come back in one; a settle goes at once, with what
 * waits: it gives back a call's slot before its answer is written, so the client's next call, on another worker,
 * never finds the slot still held. Once the primary is gone every question fails as the store being unavailable
 * (the worker is closing by then).
 */
export class WorkerCounters implements TokenBuckets, SpendStore {
  readonly component = 'primary';
  readonly #channel: PrimaryChannel;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  /** The questions of this turn, not sent yet. */
  #unsent: CounterQuestion[] = [];
  #seq = 0;

  constructor(channel: PrimaryChannel) {
    this.#channel = channel;
    channel.on('message', (message) => {
      if (isMessage<CounterAnswer>(message, 'counters')) for (const reply of message.replies) this.#answered(reply);
    });
    channel.on('disconnect', () => this.#failWaiting(this.#gone()));
  }

  take(bucket: string, capacity: number, perMs: number): Promise<TokenTake> {
    return this.#ask({ op: 'take', bucket, capacity, perMs }) as Promise<TokenTake>;
  }

  peek(bucket: string, capacity: number, perMs: number): Promise<number> {
    return this.#ask({ op: 'peek', bucket, capacity, perMs }) as Promise<number>;
  }

  async spent(slot: string): Promise<number> {
    return (await this.#ask({ op: 'spent', slot })) as number;
  }

  async reserve(id: string, holds: readonly SlotHold[], holdMs: number): Promise<SlotRefusal | undefined> {
    const refusal = await this.#ask({ op: 'reserve', id, holds: [...holds], holdMs });
    return (refusal ?? undefined) as SlotRefusal | undefined;
  }

  async settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void> {
    const settled = this.#ask({ op: 'settle', id, released: [...released], charges: [...charges] });
    this.#send();
    await settled;
  }

  #ask(call: CounterCall): Promise<unknown> {
    if (!this.#channel.connected) return Promise.reject(this.#gone());
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
      this.#unsent.push({ seq, call });
      if (this.#unsent.length === 1) setImmediate(this.#send);
    });
  }

  /** Sends the turn's questions in one message (their answers come back in one). */
  readonly #send = () => {
    const ask: CounterAsk = { switchyard: 'counters', questions: this.#unsent };
    this.#unsent = [];
    if (ask.questions.length === 0) return;
    // Gone meanwhile (before or after its `disconnect` was heard): nothing waiting will be answered.
    if (!this.#channel.connected) return this.#failWaiting(this.#gone());
    try {
      this.#channel.send(ask, (error) => {
        if (error) this.#failWaiting(this.#gone(error));
      });
    } catch (error) {
      this.#failWaiting(this.#gone(error));
    }
  };

  #answered(reply: CounterReply): void {
    const waiting = this.#waiting.get(reply.seq);
    if (!waiting) return;
    this.#waiting.delete(reply.seq);
    if (!reply.error) {
      waiting.resolve(reply.value);
      return;
    }
    // The memory store's refusal to forget a budget inside its window keeps its meaning (a 503 saying so).
    const { name, message } = reply.error;
    waiting.reject(name === 'SpendStoreFullError' ? new SpendStoreFullError(message) : new Error(message));
  }

  #failWaiting(error: StorageUnavailableError): void {
    for (const { reject } of this.#waiting.values()) reject(error);
    this.#waiting.clear();
  }

  #gone(cause?: unknown): StorageUnavailableError {
    return new StorageUnavailableError(
      'primary',
      'The counters of this server (its primary process) cannot be reached; it is shutting down. Retry shortly.',
      cause,
    );
  }
}
