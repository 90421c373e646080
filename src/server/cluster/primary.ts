import cluster, { type Worker } from 'node:cluster';
import { createServer } from 'node:net';
import type { ServerLog } from '../compose/server-log.ts';
import {
  type CounterAsk,
  isMessage,
  type StopOrder,
  WORKER_ID_VARIABLE,
  WORKER_PORT_VARIABLE,
  type WorkerReady,
} from './messages.ts';
import { PrimaryCounters } from './primary-counters.ts';

/** A worker that dies sooner than this after it was started counts as crashing in a loop (its replacement waits). */
const STEADY_MS = 10_000;
/** The longest a crashing worker's replacement waits. */
const MAX_BACKOFF_MS = 30_000;
/** Where Node can bind several sockets to one port (`reusePort`), the kernel spreading connections over them. */
const REUSE_PORT_PLATFORMS: readonly string[] = ['linux', 'freebsd', 'sunos', 'aix'];

interface Slot {
  worker: Worker | undefined;
  /** Crashes in a row, each sooner than `STEADY_MS` after its start. */
  streak: number;
  timer: NodeJS.Timeout | undefined;
  /** It said it was ready, then died while the others still started: replaced once the start ends. */
  diedAtStart?: { how: Record<string, unknown>; ranMs: number } | undefined;
}

/**
 * The primary of `serve --workers`: forks the workers (the first alone, so it creates and migrates the data file
 * before the others open it, and a start that fails says so once), answers their counters (`PrimaryCounters`),
 * writes the start's summary once, replaces a worker that died (at once, then waiting longer each time it dies again
 * within seconds of its start), and stops them all when asked: each drains its requests (streams finish) and exits.
 */
export class WorkerPool {
  readonly size: number;
  readonly #address: { host: string; port: number };
  readonly #log: ServerLog;
  /** The port each worker binds its own socket on, once the primary checked it is free (SO_REUSEPORT). */
  #ownSocketPort: number | undefined;
  readonly #counters = new PrimaryCounters();
  readonly #slots = new Map<number, Slot>();
  #started = false;
  #stopping = false;
  /** The last order to stop given (`now`: abort what is in flight). */
  #stopNow = false;
  #allExited: (() => void) | undefined;
  #allStopped: Promise<void> | undefined;

  constructor(size: number, address: { host: string; port: number }, log: ServerLog) {
    this.size = size;
    this.#address = address;
    this.#log = log;
  }

  /**
   * Starts every worker; `false` when one could not start (it said why): the others are stopped then. Throws the
   * `listen` error of a port that is taken (the workers' sockets would otherwise join another server's).
   */
  async start(): Promise<boolean> {
    if (REUSE_PORT_PLATFORMS.includes(process.platform)) this.#ownSocketPort = await freePort(this.#address);
    const first = await this.#startOne(1);
    const others = first ? await Promise.all(range(2, this.size).map((n) => this.#startOne(n))) : [];
    if (this.#stopping) return true;
    if (!first || others.includes(undefined)) {
      this.#log.error('serve could not start its workers', { workers: this.size });
      await this.stop(false);
      return false;
    }
    this.#started = true;
    for (const { level, msg, fields } of first.notices)
      this.#log[level](msg, msg === 'listening' ? { ...fields, workers: this.size } : fields);
    for (const [n, slot] of this.#slots) {
      const died = slot.diedAtStart;
      slot.diedAtStart = undefined;
      if (died) this.#exited(n, slot, died.how, died.ranMs);
    }
    return true;
  }

  /**
   * Orders every worker to stop (`now`: abort what is in flight); resolves once all have exited. Called again (a
   * second signal), the same promise.
   */
  stop(now: boolean): Promise<void> {
    this.#stopping = true;
    this.#stopNow = now;
    this.#allStopped ??= new Promise<void>((resolve) => (this.#allExited = resolve));
    const exited = this.#allStopped;
    for (const slot of this.#slots.values()) {
      clearTimeout(slot.timer);
      if (slot.worker) this.#orderToStop(slot.worker);
    }
    this.#checkAllExited();
    return exited;
  }

  /** Ends every worker at once (a third signal). */
  kill(): void {
    for (const slot of this.#slots.values()) slot.worker?.process.kill('SIGKILL');
  }

  /** Forks worker `n`; resolves with its ready message, or `undefined` if it exited first. */
  #startOne(n: number): Promise<WorkerReady | undefined> {
    const slot = this.#slots.get(n) ?? { worker: undefined, streak: 0, timer: undefined };
    this.#slots.set(n, slot);
    const worker = cluster.fork({
      [WORKER_ID_VARIABLE]: String(n),
      ...(this.#ownSocketPort === undefined ? {} : { [WORKER_PORT_VARIABLE]: String(this.#ownSocketPort) }),
    });
    slot.worker = worker;
    const startedAt = performance.now();
    return new Promise((resolve) => {
      worker.on('message', (message: unknown) => {
        if (isMessage<CounterAsk>(message, 'counters'))
          void this.#counters.answer(worker.id, message).then((answer) => {
            if (worker.isConnected()) worker.send(answer, () => undefined);
          });
        else if (isMessage<WorkerReady>(message, 'ready')) {
          // Told again once it listens: an order sent while it was starting may have come before it heard.
          if (this.#stopping) this.#orderToStop(worker);
          resolve(message);
        }
      });
      worker.on('exit', (code, signal) => {
        resolve(undefined);
        void this.#counters.forgetWorker(worker.id);
        if (slot.worker === worker) slot.worker = undefined;
        this.#exited(n, slot, { pid: worker.process.pid, code, signal }, performance.now() - startedAt);
      });
    });
  }

  /** A worker ended: while serving, it is replaced (after a wait that grows while it keeps crashing at start). */
  #exited(n: number, slot: Slot, how: Record<string, unknown>, ranMs: number): void {
    if (this.#stopping) {
      this.#checkAllExited();
      return;
    }
    if (!this.#started) {
      slot.diedAtStart = { how, ranMs };
      return;
    }
    slot.streak = ranMs < STEADY_MS ? slot.streak + 1 : 0;
    const waitMs = slot.streak <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, 500 * 2 ** (slot.streak - 1));
    this.#log.warn('worker exited; replacing it', { worker: n, ...how, replace_in_ms: waitMs });
    slot.timer = setTimeout(async () => {
      slot.timer = undefined;
      if (this.#stopping) return;
      const ready = await this.#startOne(n);
      if (ready && !this.#stopping) this.#log.info('worker replaced', { worker: n, pid: slot.worker?.process.pid });
    }, waitMs);
  }

  #orderToStop(worker: Worker): void {
    const order: StopOrder = { switchyard: 'stop', now: this.#stopNow };
    if (worker.isConnected()) worker.send(order, () => undefined);
    else worker.process.kill();
  }

  #checkAllExited(): void {
    if (!this.#stopping || [...this.#slots.values()].some((slot) => slot.worker)) return;
    this.#allExited?.();
  }
}

/**
 * The port, checked free by binding it without SO_REUSEPORT (`0`: one the system picks), then let go for the
 * workers: a server already there (even another `serve --workers`) is refused as a single `serve` would be.
 */
function freePort(address: { host: string; port: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host: address.host, port: address.port }, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}
