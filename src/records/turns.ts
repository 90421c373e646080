import { afterThisTurn } from '../internal/runtime.ts';
/**
 * Reads of large records taken one at a time, each on a turn of the event loop of its own, in the order asked,
 * whoever asks. node:sqlite reads a megabyte-sized record synchronously: 16 pages read at once would each have a
 * piece ready on every turn, and a request that needs ten turns would wait behind 160 pieces; taking turns, every
 * other request's I/O is handled between two pieces. A PostgreSQL read, asynchronous, is awaited before the next
 * starts: pages of large records hold one connection of the pool at most, whatever their number.
 */
export class Turns {
  readonly #waiting: Array<() => Promise<void>> = [];
  #running = false;

  /** Runs `work` once the reads asked before it have ended, on a turn of its own; resolves with its result. */
  run<T>(work: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push(async () => {
        try {
          resolve(await work());
        } catch (error) {
          reject(error);
        }
      });
      this.#next();
    });
  }

  #next(): void {
    if (this.#running || this.#waiting.length === 0) return;
    this.#running = true;
    afterThisTurn(async () => {
      await this.#waiting.shift()!();
      this.#running = false;
      this.#next();
    });
  }
}
