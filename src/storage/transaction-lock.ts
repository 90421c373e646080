/**
 * One transaction at a time on one connection (SQLite's, or memory): a transaction's queries run on its own handle,
 * and every other query waits until it ends, so a record batch written meanwhile never lands inside a transaction
 * that may roll back.
 */
export class TransactionLock {
  #tail: Promise<void> = Promise.resolve();
  #held = 0;

  /** Whether a transaction holds the connection now. */
  get held(): boolean {
    return this.#held > 0;
  }

  /** Resolves once no transaction holds the connection (at once when none does). */
  async idle(): Promise<void> {
    while (this.#held > 0) await this.#tail;
  }

  /** Runs `work` once every transaction before it has ended; the next waits for it. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    const before = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    this.#held += 1;
    try {
      await before;
      return await work();
    } finally {
      this.#held -= 1;
      release();
    }
  }
}
