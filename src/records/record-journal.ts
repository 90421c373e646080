import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import { afterThisTurn } from '../internal/runtime.ts';
import type { CallRecord } from './call-record.ts';
import {
  closeFile,
  emitJournalWarning,
  emptied,
  FailureReport,
  heartbeat,
  type JournalSegment,
  leftoverSegments,
  liveTokens,
  type RecordJournalOptions,
  removeFile,
  segmentName,
} from './journal-files.ts';
import { type LineBatch, lineBatches } from './journal-lines.ts';
import { recordJson } from './record-json.ts';
import type { RecordSink } from './sink.ts';

export type { JournalSegment, RecordJournalOptions } from './journal-files.ts';

const nodeCrypto = lazyNodeBuiltin('node:crypto', 'The record journal (records.journal)');
const nodeFs = lazyNodeBuiltin('node:fs', 'The record journal (records.journal)');
const nodePath = lazyNodeBuiltin('node:path', 'The record journal (records.journal)');

/**
 * A write-ahead log of call records, committed in groups: `append` adds the record's JSON line to this event-loop
 * turn's batch, written in one synchronous write at the turn's end (`commit`; at once for a record no other call can
 * join: `writeAtOnceWhen`). `durable()` is the batch's promise: an answer waits for it, so a process killed after it
 * answered leaves the record on disk. A flush sets the file aside (`rotate`), then empties it once every journaled
 * sink has stored its records, or keeps it to replay (`settle`): no file is created or deleted per flush. A journal
 * starting replays what dead processes left (`leftoverSegments`). A write is in the page cache, not fsynced: it
 * survives the process (kill -9, a crash), not a power loss.
 */
export class RecordJournal {
  readonly sinks: readonly RecordSink[];
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #appendFailure: FailureReport;
  readonly #readFailure: FailureReport;
  /** Records of the leftover files deleted at start to stay within `maxBytes` (the queue counts them as dropped). */
  readonly droppedAtStart: number;
  readonly #stopHeartbeat: () => void;
  /** Names this process's files apart from an earlier process's with the same pid (pid 1 in a container). */
  readonly #token = nodeCrypto().randomBytes(4).toString('hex');
  #sequence = 0;
  #fd: number | undefined;
  #current: JournalSegment | undefined;
  /** The files a flush set aside (`rotate`), still open, until it settles them. */
  readonly #setAside = new Map<JournalSegment, number>();
  /** An emptied file, open, that the next write appends to instead of creating one. */
  #spare: { fd: number; path: string } | undefined;
  /** Files whose records the sinks have not stored yet, oldest first: kept after a failed flush, or left behind. */
  #pending: JournalSegment[] = [];
  /** How far each pending file's replay has stored it (bytes), while it is kept. */
  readonly #replayed = new WeakMap<JournalSegment, number>();
  /** This turn's lines, not yet written, and how many records they are. */
  #batch = '';
  #batchRecords = 0;
  /** Settled once the batch is written (or its write failed): what the batch's answers wait for. */
  #committed: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Open-call files whose real record is in the batch: deleted once it is written, not before. */
  #closeAfterCommit: JournalSegment[] = [];
  #writes = 0;
  #alone: () => boolean = () => false; // see writeAtOnceWhen

  constructor(options: RecordJournalOptions) {
    this.sinks = [...options.sinks];
    this.#dir = options.dir;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#appendFailure = new FailureReport(options.onError ?? emitJournalWarning);
    this.#readFailure = new FailureReport(options.onError ?? emitJournalWarning);
    // Records hold prompts and answers: the files are the process user's alone.
    nodeFs().mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const claimedName = (open: boolean) => segmentName(this.#token, this.#sequence++, open ? 'open' : undefined);
    this.#pending = leftoverSegments(this.#dir, `${process.pid}-${this.#token}`, claimedName);
    this.droppedAtStart = this.#trim();
    liveTokens.add(this.#token);
    this.#stopHeartbeat = heartbeat(this.#dir);
  }

  /** Records waiting in files not being appended to: left by a dead process, or kept after a failed flush. */
  get pendingRecords(): number {
    return this.#pending.reduce((total, segment) => total + segment.records, 0);
  }

  /** The files to replay, oldest first (a copy: a replay discards them as it goes). */
  get pendingSegments(): readonly JournalSegment[] {
    return [...this.#pending];
  }

  /**
   * How to tell that no other call can append in this turn (a server: no other request in flight). A record appended
   * then, with no batch waiting, is written at once, as PostgreSQL's `commit_siblings` skips a group with no one to
   * wait for (10–16 µs of a lone call's reply, bench/serve-path.ts). By default a batch always waits.
   */
  writeAtOnceWhen(alone: () => boolean): void {
    this.#alone = alone;
  }

  /** Adds the record to this turn's batch (or writes it, alone); never throws. `durable()` tells when it is on disk. */
  append(record: CallRecord): void {
    const line = `${recordJson(record)}\n`;
    if (!this.#committed && this.#alone()) {
      this.#write(line, 1);
      return;
    }
    this.#batch += line;
    this.#batchRecords += 1;
    if (this.#committed) return;
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    this.#committed = { promise, resolve };
    afterThisTurn(() => this.commit());
  }

  /**
   * Settles once every record appended so far is written (or its write failed: reported once, the records only
   * queued); `undefined` when none waits. Never rejects.
   */
  durable(): Promise<void> | undefined {
    return this.#committed?.promise;
  }

  /** Write system calls made for appended records: one a batch, however many records it holds. */
  get writes(): number {
    return this.#writes;
  }

  /** Writes the batch in one system call, then lets its answers leave. Run at the turn's end; a no-op when empty. */
  commit(): void {
    const committed = this.#committed;
    if (!committed) return;
    const batch = this.#batch;
    const records = this.#batchRecords;
    this.#committed = undefined;
    this.#batch = '';
    this.#batchRecords = 0;
    this.#write(batch, records);
    const closing = this.#closeAfterCommit;
    this.#closeAfterCommit = [];
    for (const segment of closing) removeFile(segment.path);
    committed.resolve();
  }

  #write(batch: string, records: number): void {
    // Written as a string: node encodes it into the write itself, where a Buffer first would copy the batch again.
    const bytes = Buffer.byteLength(batch);
    try {
      if (this.#fd === undefined || !this.#current) {
        const spare = this.#spare;
        this.#spare = undefined;
        const path = spare?.path ?? nodePath().join(this.#dir, segmentName(this.#token, this.#sequence++));
        this.#fd = spare?.fd ?? nodeFs().openSync(path, 'a', 0o600);
        this.#current = { path, records: 0, bytes: 0 };
      }
      const written = nodeFs().writeSync(this.#fd, batch);
      if (written < bytes) {
        // A full disk took part: cut off, or the next record would join the torn line (cutting needs no space).
        nodeFs().ftruncateSync(this.#fd, this.#current.bytes);
        throw new Error(`short write to the record journal (${written} of ${bytes} bytes): the disk is full`);
      }
      this.#writes += 1;
      this.#current.records += records;
      this.#current.bytes += written;
      this.#appendFailure.recovered();
    } catch (error) {
      this.#appendFailure.failed(error);
    }
  }

  /**
   * A call in flight (a stream): its record as it stands now, in a file of its own until `closeCall`. A process
   * killed meanwhile leaves the file, replayed as any other; one that lives appends the call's real record, then
   * closes this (a replay of both stores the later one: the sinks upsert by id, and files replay oldest first).
   * Never throws: a failure is reported once, and the call goes on unjournaled.
   */
  openCall(record: CallRecord): JournalSegment | undefined {
    const line = Buffer.from(`${recordJson(record)}\n`);
    const path = nodePath().join(this.#dir, segmentName(this.#token, this.#sequence++, 'open'));
    try {
      nodeFs().writeFileSync(path, line, { mode: 0o600, flag: 'wx' });
      return { path, records: 1, bytes: line.length };
    } catch (error) {
      this.#appendFailure.failed(error);
      return undefined;
    }
  }

  /** The call's real record was appended: its file from `openCall` goes, once that record is written. */
  closeCall(segment: JournalSegment): void {
    if (this.#committed) this.#closeAfterCommit.push(segment);
    else removeFile(segment.path);
  }

  /** Sets the file being appended to aside and returns it: the records of the flush about to start. */
  rotate(): JournalSegment | undefined {
    // The batch of this turn belongs to the records the flush is about to write.
    this.commit();
    const segment = this.#current;
    if (segment && this.#fd !== undefined) this.#setAside.set(segment, this.#fd);
    this.#fd = undefined;
    this.#current = undefined;
    return segment;
  }

  /**
   * After its flush: a file whose records were stored is emptied, to be appended to again (or deleted, when a spare
   * is already kept); one whose were not is closed and kept to replay. Returns the records dropped to stay within
   * `maxBytes` (the oldest files go first).
   */
  settle(segment: JournalSegment, stored: boolean): number {
    const fd = this.#setAside.get(segment);
    this.#setAside.delete(segment);
    if (!stored) {
      if (fd !== undefined) closeFile(fd);
      this.#pending.push(segment);
      return this.#trim();
    }
    if (fd !== undefined && !this.#spare && emptied(fd)) this.#spare = { fd, path: segment.path };
    else {
      if (fd !== undefined) closeFile(fd);
      removeFile(segment.path);
    }
    return 0;
  }

  /**
   * A pending file's lines in batches (`lineBatches`), from where its replay has stored them to (`replayedTo`);
   * returns whether it was read to its end: one that cannot be read now, at its start or part way, is reported and
   * kept (never deleted unread).
   */
  *read(segment: JournalSegment, batchSize: number): Generator<LineBatch, boolean> {
    try {
      yield* lineBatches(segment.path, batchSize, this.#replayed.get(segment) ?? 0);
      this.#readFailure.recovered();
      return true;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#readFailure.failed(
        new Error(`a journal file could not be read (${reason}); it is kept for a later replay`),
      );
      return false;
    }
  }

  /** Notes that a pending file's lines up to byte `end` are stored: a replay cut short goes on from there. */
  replayedTo(segment: JournalSegment, end: number): void {
    this.#replayed.set(segment, end);
  }

  /** Deletes a pending file once replayed. */
  discard(segment: JournalSegment): void {
    this.#pending = this.#pending.filter((pending) => pending !== segment);
    removeFile(segment.path);
  }

  /** Closes the files; what they hold stays for the next process unless a flush settled it. The empty spare goes. */
  close(): void {
    this.commit();
    if (this.#fd !== undefined) closeFile(this.#fd);
    this.#fd = undefined;
    this.#current = undefined;
    for (const fd of this.#setAside.values()) closeFile(fd);
    this.#setAside.clear();
    if (this.#spare) {
      closeFile(this.#spare.fd);
      removeFile(this.#spare.path);
      this.#spare = undefined;
    }
    liveTokens.delete(this.#token);
    this.#stopHeartbeat();
  }

  #trim(): number {
    // Each process's files within its own bound, oldest dropped first: this journal's, and those of each dead process
    // it claimed (the workers of a restarted `serve --workers` left a backlog each, which one of them takes).
    const bytes = new Map<string, number>();
    for (const { claimedFrom = '', bytes: size } of this.#pending)
      bytes.set(claimedFrom, (bytes.get(claimedFrom) ?? 0) + size);
    const gone = new Set<JournalSegment>();
    for (const segment of this.#pending) {
      const owner = segment.claimedFrom ?? '';
      if (bytes.get(owner)! <= this.#maxBytes) continue;
      gone.add(segment);
      bytes.set(owner, bytes.get(owner)! - segment.bytes);
    }
    let dropped = 0;
    for (const segment of gone) {
      removeFile(segment.path);
      dropped += segment.records;
    }
    if (gone.size > 0) this.#pending = this.#pending.filter((segment) => !gone.has(segment));
    return dropped;
  }
}
