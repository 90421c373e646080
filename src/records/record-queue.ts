import { breather } from '../internal/breathing.ts';
import { afterThisTurn, unrefTimer } from '../internal/runtime.ts';
import type { CallRecord } from './call-record.ts';
import { replayJournal } from './journal-replay.ts';
import type { RecordJournal } from './record-journal.ts';
import {
  DEFAULT_FLUSH_INTERVAL_MS,
  emitDropWarning,
  emitSinkWarning,
  type RecordQueueOptions,
  type RecordQueueStats,
} from './record-queue-options.ts';
import { type RecordSink, RecordsRefusedError } from './sink.ts';

export type { RecordQueueOptions, RecordQueueStats } from './record-queue-options.ts';

/** A failing sink or a full queue is reported at most once per this interval, so it is loud without flooding logs. */
const REPORT_INTERVAL_MS = 60_000;
/** How soon after a replay met an outage an empty flush tries again (one that stored records tries at once). */
const REPLAY_RETRY_MS = 5_000;

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
  readonly #onDropped: (stats: RecordQueueStats) => void;
  readonly #journal: RecordJournal | undefined;
  /** When each sink's failure was last reported (`performance.now()`). */
  readonly #reportedAt = new Map<RecordSink, number>();
  #dropsReportedAt: number | undefined;
  #queue: CallRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushScheduled = false;
  /** The last flush started; the next one waits for it, which is what serialises them. */
  #flushChain: Promise<void> = Promise.resolve();
  /** The flush asked for and not started yet: later asks join it. */
  #waitingFlush: Promise<void> | undefined;
  /** When a replay last met a store's outage: an empty flush soon after does not read and write the files again. */
  #replayFailedAt = Number.NEGATIVE_INFINITY;
  #closing: Promise<void> | undefined;
  #written = 0;
  #dropped = 0;
  #failed = 0;
  #buildFailed = 0;
  #lastLossAt: number | undefined;

  constructor(options: RecordQueueOptions) {
    this.#sinks = [...options.sinks];
    this.#maxQueued = Math.max(1, Math.floor(options.maxQueued ?? 10_000));
    this.#batchSize = Math.max(1, Math.floor(options.batchSize ?? 200));
    this.#flushIntervalMs = Math.max(0, options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.#onError = options.onError ?? emitSinkWarning;
    this.#onDropped = options.onDropped ?? emitDropWarning;
    this.#journal = options.journal;
    this.#countDropped(this.#journal?.droppedAtStart ?? 0);
    if (this.#journal?.pendingSegments.length) this.#scheduleFlushSoon();
  }

  /** Whether accepted records are journaled in `enqueue` (the recorder then builds them before the answer leaves). */
  get journaled(): boolean {
    return this.#journal !== undefined;
  }

  /**
   * Queues a record; `false` when it was dropped (queue full or closed). Never throws, never waits. `incomplete`:
   * the record could only be built in part (counted as `build_failed`).
   */
  enqueue(record: CallRecord, incomplete = false): boolean {
    if (this.#closing || this.#queue.length >= this.#maxQueued) {
      if (incomplete) this.#buildFailed += 1;
      this.#dropped += 1;
      this.#lastLossAt = Date.now();
      this.#reportDrops();
      return false;
    }
    // Counted once appended: a record whose JSON throws here is replaced by its caller's bare one, counted then.
    this.#journal?.append(record);
    if (incomplete) this.#buildFailed += 1;
    this.#queue.push(record);
    if (this.#queue.length >= this.#batchSize) this.#scheduleFlushSoon();
    else this.#timer ??= unrefTimer(setTimeout(() => void this.flush(), this.#flushIntervalMs));
    return true;
  }

  /**
   * Settles once every record accepted so far is in the journal's file (its batch is written at the end of the
   * event-loop turn); `undefined` without a journal, or when nothing waits. Never rejects.
   */
  durable(): Promise<void> | undefined {
    return this.#journal?.durable();
  }

  /**
   * Resolves once every record queued before the call has been handed to every sink (or failed). Never rejects. A
   * flush asked while another waits to start is that one: it drains what is queued when it starts.
   */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#waitingFlush) return this.#waitingFlush;
    const started = () => {
      this.#waitingFlush = undefined;
      return this.#drain();
    };
    this.#waitingFlush = this.#flushChain.then(started).catch(() => undefined);
    this.#flushChain = this.#waitingFlush;
    return this.#flushChain;
  }

  /**
   * Refuses new records, flushes the queued ones, then closes every sink. Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.flush();
      this.#journal?.close();
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
    const lastLossAt = this.#lastLossAt === undefined ? null : new Date(this.#lastLossAt).toISOString();
    return {
      queued: this.#queue.length,
      written: this.#written,
      dropped: this.#dropped,
      failed: this.#failed,
      build_failed: this.#buildFailed,
      last_loss_at: lastLossAt,
      journal_writes: this.#journal?.writes ?? 0,
    };
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
    afterThisTurn(() => {
      this.#flushScheduled = false;
      void this.flush();
    }, true);
  }

  /** Writes what is queued now, batch by batch; records arriving meanwhile have armed the timer for the next flush. */
  async #drain(): Promise<void> {
    // The journal file of exactly the records this drain writes: later ones go to the next file.
    const segment = this.#journal?.rotate();
    let journaledSinkFailed = false;
    // With a segment, what was stored and refused counts once the segment is settled: kept after an outage, it is
    // replayed whole, and the replay counts every record of it.
    let stored = 0;
    let refused = 0;
    const drained = this.#queue.length;
    let remaining = drained;
    // A synchronous store (SQLite) holds the event loop for a batch; a drain of many does not hold it for all.
    const breathe = breather(1);
    while (remaining > 0) {
      if (remaining < drained) await breathe();
      const batch = this.#queue.splice(0, Math.min(this.#batchSize, remaining));
      remaining -= batch.length;
      // After a journaled sink failed, its later batches wait in the segment too: not each for a store that is down.
      const outcomes = await Promise.all(
        this.#sinks.map((sink, index) =>
          journaledSinkFailed && segment !== undefined && this.#isJournaled(index)
            ? { lost: batch.length, threw: true }
            : this.#writeTo(sink, batch),
        ),
      );
      stored += batch.length - Math.max(0, ...outcomes.map((outcome) => outcome.lost));
      for (const [index, { lost, threw }] of outcomes.entries()) {
        const replayed = segment !== undefined && this.#isJournaled(index);
        if (replayed) refused += threw ? 0 : lost;
        // A journaled sink's outage loses nothing yet: the segment keeps the batch for a replay.
        else this.#countFailed(lost);
        journaledSinkFailed ||= threw && replayed;
      }
    }
    if (!journaledSinkFailed) {
      this.#written += stored;
      this.#countFailed(refused);
    }
    if (!this.#journal) return;
    // Records whose append failed (a full disk) are in no segment: an outage of the sinks loses them.
    if (segment && journaledSinkFailed) this.#countFailed(drained - segment.records);
    if (segment) this.#countDropped(this.#journal.settle(segment, !journaledSinkFailed));
    // After an outage, a drain that stored records says the store is back; an empty one waits out REPLAY_RETRY_MS.
    const mayReplay = stored > 0 || performance.now() - this.#replayFailedAt >= REPLAY_RETRY_MS;
    if (!journaledSinkFailed && mayReplay && this.#journal.pendingSegments.length > 0)
      await this.#replay(this.#journal);
  }

  #isJournaled(sinkIndex: number): boolean {
    return this.#journal?.sinks.includes(this.#sinks[sinkIndex]!) ?? false;
  }

  /** Stored records of the journal's pending files count as written; refused or unreadable ones as failed. */
  async #replay(journal: RecordJournal): Promise<void> {
    const { stored, lost, failure } = await replayJournal(journal, this.#batchSize);
    this.#written += stored;
    this.#failed += lost;
    if (lost > 0) this.#lastLossAt = Date.now();
    if (failure) this.#report(failure.error, failure.sink);
    this.#replayFailedAt = failure ? performance.now() : Number.NEGATIVE_INFINITY;
  }

  #countFailed(records: number): void {
    if (records <= 0) return;
    this.#failed += records;
    this.#lastLossAt = Date.now();
  }

  /** Records the journal deleted unstored to stay within its size: dropped, as from a full queue. */
  #countDropped(records: number): void {
    if (records === 0) return;
    this.#dropped += records;
    this.#lastLossAt = Date.now();
    this.#reportDrops();
  }

  /**
   * How many records of the batch the sink did not store: all when it threw (`threw`: an outage, worth a journal
   * replay), the refused ones when it said so. Counting them is the drain's (an outage of a sink the journal stands
   * in for is no loss: the replay stores the batch, or counts what it could not).
   */
  async #writeTo(sink: RecordSink, batch: CallRecord[]): Promise<{ lost: number; threw: boolean }> {
    try {
      await sink.write(batch);
      // Recovered: its next failure is news, whenever it comes.
      this.#reportedAt.delete(sink);
      return { lost: 0, threw: false };
    } catch (error) {
      const threw = !(error instanceof RecordsRefusedError);
      const refused = threw ? batch.length : Math.max(0, (error as RecordsRefusedError).refused);
      const lost = Math.min(refused, batch.length);
      const last = this.#reportedAt.get(sink);
      const now = performance.now();
      if (last === undefined || now - last >= REPORT_INTERVAL_MS) {
        this.#reportedAt.set(sink, now);
        this.#report(error, sink);
      }
      return { lost, threw };
    }
  }

  #reportDrops(): void {
    const now = performance.now();
    if (this.#dropsReportedAt !== undefined && now - this.#dropsReportedAt < REPORT_INTERVAL_MS) return;
    this.#dropsReportedAt = now;
    try {
      this.#onDropped(this.stats);
    } catch {
      // A throwing handler must not break the queue.
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
