import type { CallRecord } from './call-record.ts';
import type { RecordSink } from './sink.ts';

export interface RecordQueueOptions {
  sinks: RecordSink[];
  /** Records waiting at most; past it new records are dropped and counted (default 10_000). */
  maxQueued?: number;
  /** A flush starts once this many records wait (default 200), and writes batches of at most this size. */
  batchSize?: number;
  /** A flush starts at the latest this long after a record arrives (default 1000 ms). */
  flushIntervalMs?: number;
  /**
   * Told about a sink's failure once, until that sink succeeds again, so a broken sink cannot flood the logs.
   * Default: a process warning.
   */
  onError?: (error: unknown, sink: RecordSink) => void;
}

export interface RecordQueueStats {
  /** Records waiting to be written. */
  queued: number;
  /** Records every sink has been handed and none failed on. */
  written: number;
  /** Records refused because the queue was full or closed. */
  dropped: number;
  /** Failed writes: one per record per sink that threw. */
  failed: number;
}

/**
 * Takes call records off the request path: `enqueue` only appends to an array, and the sinks are written in
 * batches from a timer (unref'd, so it never keeps the process alive) or once a batch is full. Flushes run one
 * after the other; a sink's error is counted and reported, never thrown to the code that enqueued.
 */
export class RecordQueue {
  readonly #sinks: RecordSink[];
  readonly #maxQueued: number;
  readonly #batchSize: number;
  readonly #flushIntervalMs: number;
  readonly #onError: (error: unknown, sink: RecordSink) => void;
  readonly #failingSinks = new Set<RecordSink>();
  #queue: CallRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushScheduled = false;
  /** The last flush started; the next one waits for it, which is what serialises them. */
  #flushChain: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;
  #written = 0;
  #dropped = 0;
  #failed = 0;

  constructor(options: RecordQueueOptions) {
    this.#sinks = [...options.sinks];
    this.#maxQueued = Math.max(1, Math.floor(options.maxQueued ?? 10_000));
    this.#batchSize = Math.max(1, Math.floor(options.batchSize ?? 200));
    this.#flushIntervalMs = Math.max(0, options.flushIntervalMs ?? 1000);
    this.#onError = options.onError ?? emitSinkWarning;
  }

  /** Queues a record; `false` when it was dropped (queue full or closed). Never throws, never waits. */
  enqueue(record: CallRecord): boolean {
    if (this.#closing || this.#queue.length >= this.#maxQueued) {
      this.#dropped += 1;
      return false;
    }
    this.#queue.push(record);
    if (this.#queue.length >= this.#batchSize) this.#scheduleFlushSoon();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#flushIntervalMs).unref();
    return true;
  }

  /** Resolves once every record queued before the call has been handed to every sink (or failed). Never rejects. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#flushChain = this.#flushChain.then(() => this.#drain()).catch(() => undefined);
    return this.#flushChain;
  }

  /** Refuses new records, flushes the queued ones, then closes every sink. Calling it again returns the same promise. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.flush();
      for (const sink of this.#sinks) {
        try {
          await sink.close?.();
        } catch (error) {
          this.#report(error, sink);
        }
      }
    })();
    return this.#closing;
  }

  get stats(): RecordQueueStats {
    return { queued: this.#queue.length, written: this.#written, dropped: this.#dropped, failed: this.#failed };
  }

  get dropped(): number {
    return this.#dropped;
  }

  get failed(): number {
    return this.#failed;
  }

  /** A full batch is written on the next turn of the event loop, not inside `enqueue` (a sink may be synchronous). */
  #scheduleFlushSoon(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      void this.flush();
    }).unref();
  }

  /** Writes what is queued now, batch by batch; records arriving meanwhile have armed the timer for the next flush. */
  async #drain(): Promise<void> {
    let remaining = this.#queue.length;
    while (remaining > 0) {
      const batch = this.#queue.splice(0, Math.min(this.#batchSize, remaining));
      remaining -= batch.length;
      const failures = await Promise.all(this.#sinks.map((sink) => this.#writeTo(sink, batch)));
      if (!failures.includes(true)) this.#written += batch.length;
    }
  }

  /** `true` when the sink failed on the batch. */
  async #writeTo(sink: RecordSink, batch: CallRecord[]): Promise<boolean> {
    try {
      await sink.write(batch);
      this.#failingSinks.delete(sink);
      return false;
    } catch (error) {
      this.#failed += batch.length;
      if (!this.#failingSinks.has(sink)) {
        this.#failingSinks.add(sink);
        this.#report(error, sink);
      }
      return true;
    }
  }

  #report(error: unknown, sink: RecordSink): void {
    try {
      this.#onError(error, sink);
    } catch {
      // A throwing error handler must not break the queue either.
    }
  }
}

function emitSinkWarning(error: unknown, sink: RecordSink): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.emitWarning(`switchyard: the ${sink.constructor.name} call-record sink failed: ${reason}`, { code: 'SWITCHYARD_RECORD_SINK' });
}
