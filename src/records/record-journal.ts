import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import type { CallRecord } from './call-record.ts';
import { recordJson } from './record-json.ts';
import type { RecordSink } from './sink.ts';

const nodeCrypto = lazyNodeBuiltin('node:crypto', 'The record journal (records.journal)');
const nodeFs = lazyNodeBuiltin('node:fs', 'The record journal (records.journal)');
const nodeOs = lazyNodeBuiltin('node:os', 'The record journal (records.journal)');
const nodePath = lazyNodeBuiltin('node:path', 'The record journal (records.journal)');

export interface RecordJournalOptions {
  /** The journal's directory (created if missing). One per process is not needed: each writes its own files. */
  dir: string;
  /** The sinks the journal stands in for until they have stored a record: a replay writes to them alone. */
  sinks: RecordSink[];
  /**
   * Bytes of unstored records kept at most (default 64 MiB) while the sinks fail: past it the oldest files are
   * deleted and their records counted as dropped.
   */
  maxBytes?: number;
  /** Told when a record could not be appended (a full disk, say): the first time only. Default: a process warning. */
  onError?: (error: unknown) => void;
}

/** One file of the journal: the records appended between two flushes of the record queue. */
export interface JournalSegment {
  path: string;
  records: number;
  bytes: number;
}

/**
 * `<pid>-<token>-<n>@<host>.jsonl`: whose file it is, so a replica never replays a live one's. A call still in
 * flight has a file of its own, `<pid>-<token>-<n>-open@<host>.jsonl`, deleted when its real record is appended.
 */
const SEGMENT_NAME = /^(\d+)-([0-9a-f]+)-(\d+)(-open)?@(.+)\.jsonl$/;

/**
 * A write-ahead log of call records: each record is appended as one JSON line, with a synchronous write, before the
 * call's answer leaves, so a process killed before its batch was flushed leaves the records behind on disk. The
 * record queue closes the file being appended to when a flush starts (`rotate`), deletes it once every journaled sink
 * has stored its records, or keeps it to replay (`settle`). A process that starts replays what a dead one left in the
 * same directory: a file named after a process on this machine that no longer runs.
 *
 * A write is in the kernel's page cache once `append` returns, not fsynced: it survives the process (kill -9, an
 * out-of-memory kill, a crash), not a power loss or a kernel crash before the kernel writes it out.
 */
export class RecordJournal {
  readonly sinks: readonly RecordSink[];
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #onError: (error: unknown) => void;
  /** Names this process's files apart from an earlier process's with the same pid (pid 1 in a container). */
  readonly #token = nodeCrypto().randomBytes(4).toString('hex');
  #sequence = 0;
  #fd: number | undefined;
  #current: JournalSegment | undefined;
  /** Files whose records the sinks have not stored yet, oldest first: kept after a failed flush, or left behind. */
  #pending: JournalSegment[] = [];
  #appendFailed = false;

  constructor(options: RecordJournalOptions) {
    this.sinks = [...options.sinks];
    this.#dir = options.dir;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#onError = options.onError ?? emitJournalWarning;
    // Records hold prompts and answers: the files are the process user's alone.
    nodeFs().mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    this.#adoptLeftovers();
    liveTokens.add(this.#token);
  }

  /** Records waiting in files not being appended to: left by a dead process, or kept after a failed flush. */
  get pendingRecords(): number {
    return this.#pending.reduce((total, segment) => total + segment.records, 0);
  }

  /** The oldest file to replay, if any. */
  get nextPending(): JournalSegment | undefined {
    return this.#pending[0];
  }

  /** Appends the record; never throws (a failure is reported once, and the record is only queued). */
  append(record: CallRecord): void {
    const line = Buffer.from(`${recordJson(record)}\n`);
    try {
      if (this.#fd === undefined || !this.#current) {
        const path = nodePath().join(this.#dir, `${process.pid}-${this.#token}-${this.#sequence++}@${ownHost()}.jsonl`);
        this.#fd = nodeFs().openSync(path, 'a', 0o600);
        this.#current = { path, records: 0, bytes: 0 };
      }
      const written = nodeFs().writeSync(this.#fd, line);
      // A regular file takes a whole write or fails; a short one (a full disk) leaves a torn line a replay skips.
      if (written < line.length) throw new Error(`short write to the record journal (${written} of ${line.length})`);
      this.#current.records += 1;
      this.#current.bytes += written;
      this.#appendFailed = false;
    } catch (error) {
      this.#report(error);
    }
  }

  /** A failure to write, reported the first time after a success. */
  #report(error: unknown): void {
    if (this.#appendFailed) return;
    this.#appendFailed = true;
    try {
      this.#onError(error);
    } catch {
      // A throwing handler must not fail the call.
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
    const path = nodePath().join(
      this.#dir,
      `${process.pid}-${this.#token}-${this.#sequence++}-open@${ownHost()}.jsonl`,
    );
    try {
      nodeFs().writeFileSync(path, line, { mode: 0o600, flag: 'wx' });
      return { path, records: 1, bytes: line.length };
    } catch (error) {
      this.#report(error);
      return undefined;
    }
  }

  /** The call's real record was appended: its file from `openCall` goes. */
  closeCall(segment: JournalSegment): void {
    removeFile(segment.path);
  }

  /** Closes the file being appended to and returns it: the records of the flush about to start. */
  rotate(): JournalSegment | undefined {
    const segment = this.#current;
    this.#closeFile();
    return segment;
  }

  /**
   * After its flush: a file whose records were stored is deleted; one whose were not is kept to replay. Returns the
   * records dropped to stay within `maxBytes` (the oldest files go first).
   */
  settle(segment: JournalSegment, stored: boolean): number {
    if (stored) {
      removeFile(segment.path);
      return 0;
    }
    this.#pending.push(segment);
    return this.#trim();
  }

  /** The records of a pending file; a line that does not parse (torn by a power loss) is skipped and counted. */
  read(segment: JournalSegment): { records: CallRecord[]; unreadable: number } {
    const records: CallRecord[] = [];
    let unreadable = 0;
    let text = '';
    try {
      text = nodeFs().readFileSync(segment.path, 'utf8');
    } catch {
      // Deleted meanwhile by another process replaying it: nothing left to do.
    }
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        records.push(JSON.parse(line) as CallRecord);
      } catch {
        unreadable += 1;
      }
    }
    return { records, unreadable };
  }

  /** Deletes a pending file once replayed. */
  discard(segment: JournalSegment): void {
    this.#pending = this.#pending.filter((pending) => pending !== segment);
    removeFile(segment.path);
  }

  /** Closes the file being appended to; what it holds stays for the next process unless a flush settled it. */
  close(): void {
    this.#closeFile();
    liveTokens.delete(this.#token);
  }

  #closeFile(): void {
    if (this.#fd !== undefined) {
      try {
        nodeFs().closeSync(this.#fd);
      } catch {
        // Closing a file we wrote cannot lose what the kernel already has.
      }
    }
    this.#fd = undefined;
    this.#current = undefined;
  }

  #trim(): number {
    let bytes = this.#pending.reduce((total, segment) => total + segment.bytes, 0);
    let dropped = 0;
    while (bytes > this.#maxBytes && this.#pending.length > 0) {
      const oldest = this.#pending.shift()!;
      removeFile(oldest.path);
      bytes -= oldest.bytes;
      dropped += oldest.records;
    }
    return dropped;
  }

  /** Files of processes on this machine that no longer run, oldest first, within `maxBytes` (newest kept). */
  #adoptLeftovers(): void {
    const found: Array<JournalSegment & { modified: number; open: boolean }> = [];
    for (const name of nodeFs().readdirSync(this.#dir)) {
      const owner = SEGMENT_NAME.exec(name);
      if (!owner || decodeURIComponent(owner[5]!) !== nodeOs().hostname() || isRunning(Number(owner[1]), owner[2]!))
        continue;
      const path = nodePath().join(this.#dir, name);
      try {
        const { size, mtimeMs } = nodeFs().statSync(path);
        const records = nodeFs().readFileSync(path, 'utf8').split('\n').length - 1;
        found.push({ path, records, bytes: size, modified: mtimeMs, open: owner[4] !== undefined });
      } catch {
        // Taken by another replica starting at the same time.
      }
    }
    // Oldest first; at the same time, a call's open record before the file that may hold its real one.
    const order = (a: (typeof found)[number], b: (typeof found)[number]) =>
      a.modified - b.modified || Number(b.open) - Number(a.open);
    this.#pending = found.sort(order).map(({ modified: _, open: __, ...segment }) => segment);
    this.#trim();
  }
}

const ownHost = () => encodeURIComponent(nodeOs().hostname());

/** The tokens of this process's journals: another journal on the same directory in this process is alive. */
const liveTokens = new Set<string>();

/** Whether the file's writer runs here; our pid with a token of ours not is an earlier process's (a container's 1). */
function isRunning(pid: number, token: string): boolean {
  if (pid === process.pid) return liveTokens.has(token);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeFile(path: string): void {
  try {
    nodeFs().unlinkSync(path);
  } catch {
    // Gone already (another replica replayed it): the records are stored either way.
  }
}

function emitJournalWarning(error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.emitWarning(`switchyard: the call-record journal could not be written: ${reason}`, {
    code: 'SWITCHYARD_RECORD_JOURNAL',
  });
}
