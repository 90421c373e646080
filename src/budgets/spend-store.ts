/**
 * Where budget spend is counted: in the process (`MemorySpendStore`, the default) or in Redis (`RedisSpendStore`,
 * shared by every replica of `serve`). Keys are a budget's slot (scope, window, period, value); amounts dollars.
 */
export interface SpendStore {
  spent(slot: string): Promise<number>;
  /** Adds to a slot; `ttlMs`: how long the slot must live (the rest of its window). */
  add(slot: string, usd: number, ttlMs: number): Promise<void>;
}

/** Spend in this process, bounded: past `max` slots, the least recently charged are forgotten. */
export class MemorySpendStore implements SpendStore {
  readonly #spent = new Map<string, number>();
  readonly #max: number;

  constructor(max = 100_000) {
    this.#max = max;
  }

  async spent(slot: string): Promise<number> {
    return this.#spent.get(slot) ?? 0;
  }

  async add(slot: string, usd: number): Promise<void> {
    const total = (this.#spent.get(slot) ?? 0) + usd;
    // Re-inserted, so the map's order is least recently charged first.
    this.#spent.delete(slot);
    this.#spent.set(slot, total);
    if (this.#spent.size > this.#max) this.#spent.delete(this.#spent.keys().next().value!);
  }
}
