import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import type { RecordSink } from './sink.ts';

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
  /**
   * Told when a record could not be appended (a full disk, say), or a pending file could not be read: the first time
   * only. Default: a process warning.
   */
  onError?: (error: unknown) => void;
}

/** One file of the journal: the records appended between two flushes of the record queue. */
export interface JournalSegment {
  path: string;
  records: number;
  bytes: number;
  /** The dead process it was claimed from (`<pid>-<token>@<host>`); absent: this journal's own. */
  claimedFrom?: string;
}

/**
 * `<pid>-<token>-<n>@<host>.jsonl`: whose file it is, so a replica never replays a live one's. A call still in
 * flight has a file of its own, `<pid>-<token>-<n>-open@<host>.jsonl`, deleted when its real record is written.
 */
const SEGMENT_NAME = /^(\d+)-([0-9a-f]+)-(\d+)(-open)?@(.+)\.jsonl$/;

const ownHost = () => encodeURIComponent(nodeOs().hostname());

/** The tokens of this process's journals: another journal on the same directory in this process is alive. */
export const liveTokens = new Set<string>();

/** A file of this process's journal: its pid, the journal's token and a sequence number; `open`: a call in flight. */
export function segmentName(token: string, sequence: number, open?: 'open'): string {
  return `${process.pid}-${token}-${sequence}${open ? '-open' : ''}@${ownHost()}.jsonl`;
}

/**
 * Files in `dir` of processes on this machine that no longer run, oldest first, taken for this journal: a dead
 * process's files are renamed into this journal's names (`claimedName`) by whichever journal claims them first, so
 * journals starting together on one directory (the workers of `serve --workers`) replay each once, and a stream's
 * open record never lands after its real one from another replay. `claimant`: this journal's `<pid>-<token>`.
 */
export function leftoverSegments(
  dir: string,
  claimant: string,
  claimedName: (open: boolean) => string,
): JournalSegment[] {
  const found: Array<JournalSegment & { modified: number; open: boolean }> = [];
  for (const [owner, files] of deadOwners(dir)) {
    const marker = nodePath().join(dir, `${owner}.claim`);
    if (!claim(marker, claimant)) continue;
    for (const { name, open } of files) {
      const path = nodePath().join(dir, claimedName(open));
      try {
        // Renaming keeps the file's time, by which files replay.
        nodeFs().renameSync(nodePath().join(dir, name), path);
        const { size, mtimeMs } = nodeFs().statSync(path);
        found.push({ path, records: countLines(path), bytes: size, modified: mtimeMs, open, claimedFrom: owner });
      } catch {
        // Taken by a replica of an earlier version starting at the same time (it claims nothing).
      }
    }
    removeFile(marker);
  }
  // Oldest first; at the same time, a call's open record before the file that may hold its real one.
  const order = (a: (typeof found)[number], b: (typeof found)[number]) =>
    a.modified - b.modified || Number(b.open) - Number(a.open);
  return found.sort(order).map(({ modified: _, open: __, ...segment }) => segment);
}

/**
 * The files of each process that no longer runs, by `<pid>-<token>@<host>`: of this machine, a process that is not
 * running; of another, one whose machine has not marked itself alive here for `HOST_GONE_MS` (a container started
 * anew under another host name on the same volume: its predecessor's files are its to replay).
 */
function deadOwners(dir: string): Map<string, Array<{ name: string; open: boolean }>> {
  const owners = new Map<string, Array<{ name: string; open: boolean }>>();
  const gone = new Map<string, boolean>();
  for (const name of nodeFs().readdirSync(dir)) {
    const owner = SEGMENT_NAME.exec(name);
    if (!owner) continue;
    const [, pid, token, , open, host] = owner as unknown as [string, string, string, string, string, string];
    if (host === ownHost() ? isRunning(Number(pid), token) : !hostGone(dir, host, name, gone)) continue;
    const key = `${pid}-${token}@${host}`;
    const files = owners.get(key) ?? [];
    files.push({ name, open: open !== undefined });
    owners.set(key, files);
  }
  return owners;
}

/** How often a journal marks its machine alive in its directory (`heartbeat`). */
const HEARTBEAT_MS = 10_000;
/** How long a machine unmarked is taken for gone, its files for others to replay. */
const HOST_GONE_MS = 60_000;
const aliveName = (host: string) => `alive@${host}`;

/** Marks this machine alive in `dir`, now and every `HEARTBEAT_MS`; returns how to stop. */
export function heartbeat(dir: string): () => void {
  const path = nodePath().join(dir, aliveName(ownHost()));
  const beat = () => {
    try {
      nodeFs().writeFileSync(path, '', { mode: 0o600 });
    } catch {
      // A directory gone or full: its files are then no one's to take anyway.
    }
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Whether `host` (encoded) last marked itself alive long ago; unmarked (an earlier version), its file's age says. */
function hostGone(dir: string, host: string, file: string, known: Map<string, boolean>): boolean {
  const since = Date.now() - HOST_GONE_MS;
  const modified = (name: string) => nodeFs().statSync(nodePath().join(dir, name)).mtimeMs;
  let gone = known.get(host);
  if (gone === undefined) {
    gone = attemptOr(() => modified(aliveName(host)) < since, undefined);
    if (gone !== undefined) known.set(host, gone);
  }
  return gone ?? attemptOr(() => modified(file) < since, false);
}

function attemptOr<T, F>(work: () => T, fallback: F): T | F {
  try {
    return work();
  } catch {
    return fallback;
  }
}

/**
 * Creates a dead process's claim file, naming this journal: `false` when another live journal holds it. One left by
 * a claimant that died before it finished is taken over.
 */
function claim(marker: string, claimant: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      nodeFs().writeFileSync(marker, claimant, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const holder = /^(\d+)-([0-9a-f]+)$/.exec(attemptOr(() => nodeFs().readFileSync(marker, 'utf8'), ''));
      if (holder && isRunning(Number(holder[1]), holder[2]!)) return false;
      removeFile(marker);
    }
  }
  return false;
}

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

export function removeFile(path: string): void {
  try {
    nodeFs().unlinkSync(path);
  } catch {
    // Gone already (another replica replayed it): the records are stored either way.
  }
}

/** Closes a journal file; never throws. */
export function closeFile(fd: number): void {
  try {
    nodeFs().closeSync(fd);
  } catch {
    // Closing a file we wrote cannot lose what the kernel already has.
  }
}

/**
 * Empties a file whose records are stored, so it can take the next ones; false when that failed (the caller then
 * deletes it).
 */
export function emptied(fd: number): boolean {
  try {
    // Opened to append: the next write goes to the new end, the start.
    nodeFs().ftruncateSync(fd, 0);
    return true;
  } catch {
    return false;
  }
}

/** Tells of a failure the first time after a success; a handler that throws fails no call. */
export class FailureReport {
  readonly #tell: (error: unknown) => void;
  #failed = false;

  constructor(tell: (error: unknown) => void) {
    this.#tell = tell;
  }

  failed(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    try {
      this.#tell(error);
    } catch {
      // Not the call's to fail.
    }
  }

  recovered(): void {
    this.#failed = false;
  }
}

/** The journal's failures, by default: a process warning. */
export function emitJournalWarning(error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.emitWarning(`switchyard: the call-record journal failed: ${reason}`, {
    code: 'SWITCHYARD_RECORD_JOURNAL',
  });
}

/** The lines of a file, read a block at a time: a dead process's backlog may be 64 MiB, never held whole. */
function countLines(path: string): number {
  const fd = nodeFs().openSync(path, 'r');
  try {
    const block = Buffer.allocUnsafe(64 * 1024);
    let lines = 0;
    for (let read = nodeFs().readSync(fd, block); read > 0; read = nodeFs().readSync(fd, block))
      for (let at = block.indexOf(10); at !== -1 && at < read; at = block.indexOf(10, at + 1)) lines++;
    return lines;
  } finally {
    nodeFs().closeSync(fd);
  }
}
