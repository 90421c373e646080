/**
 * A map whose entries lapse (a trust that ends, a bucket that refills): the lapsed ones are deleted once the map has
 * doubled since its last sweep, so it holds at most twice the entries still live, at an amortised O(1) a `set`. For
 * maps keyed by what callers can make without end (keys minted and revoked), where lapsed entries would otherwise
 * stay for the life of the process.
 */
export class SweptMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #lapsed: (value: V, now: number) => boolean;
  #sweepAt = MIN_SWEEP_SIZE;

  /** `lapsed` is asked with `performance.now()` read once a sweep. */
  constructor(lapsed: (value: V, now: number) => boolean) {
    this.#lapsed = lapsed;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    this.#entries.set(key, value);
    if (this.#entries.size < this.#sweepAt) return;
    const now = performance.now();
    for (const [entryKey, entry] of this.#entries) if (this.#lapsed(entry, now)) this.#entries.delete(entryKey);
    this.#sweepAt = Math.max(MIN_SWEEP_SIZE, this.#entries.size * 2);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Deletes every entry `doomed` names. */
  deleteWhere(doomed: (value: V) => boolean): void {
    for (const [key, value] of this.#entries) if (doomed(value)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#sweepAt = MIN_SWEEP_SIZE;
  }
}

/** Below this, a map is never swept: a few hundred keys' entries cost less than walking them. */
const MIN_SWEEP_SIZE = 1024;
