import { StorageUnavailableError } from '../errors.ts';

/**
 * Hands out a pool's connections one caller at a time, in arrival order. `pg` times a wait for a busy pool's free
 * connection with the same `connectionTimeoutMillis` that makes an outage fail fast, so a burst of sound requests
 * would be told "PostgreSQL is unavailable" after a second: with this gate in front, the pool never has a waiter,
 * its timeout measures only opening a connection, and a burst queues here, bounded by `waitMs`.
 */
export class ConnectionGate {
  readonly #size: number;
  readonly #waitMs: number;
  #inUse = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number, waitMs: number) {
    this.#size = Math.max(1, size);
    this.#waitMs = waitMs;
  }

  /** Runs `work` holding one connection's place; waits its turn (at most `waitMs`, then a 503) when all are taken. */
  async hold<T>(work: () => Promise<T>, waitMs = this.#waitMs): Promise<T> {
    if (this.#inUse < this.#size) this.#inUse++;
    else await this.#turn(waitMs);
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next)
        next(); // the place passes straight to the next in line
      else this.#inUse--;
    }
  }

  #turn(waitMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(admit), 1);
        reject(new StorageUnavailableError('postgres', 'The database (PostgreSQL) is busy; retry shortly.'));
      }, waitMs);
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiting.push(admit);
    });
  }
}
