/**
 * Where budget spend is counted: in the process (`MemorySpendStore`, the default) or in Redis (`RedisSpendStore`,
 * shared by every replica of `serve`). Keys are a budget's slot (scope, window, period, value); amounts dollars or
 * tokens. Beside what was spent, a slot holds the reservations of the calls in flight: a call is admitted only while
 * spent + held is under the limit, so calls started together cannot all pass a budget none of them has charged yet.
 */
export interface SpendStore {
  /** What a failure of this store is reported as (`StorageUnavailableError.component`): `redis`, … */
  readonly component?: string;
  spent(slot: string): Promise<number>;
  /**
   * Atomically, for every slot at once: refused (the first slot without room) unless each slot's spent + held is under
   * its limit; else each `amount` is held under `id` until `settle`, or until `holdMs` passes (a replica that died).
   */
  reserve(id: string, holds: readonly SlotHold[], holdMs: number): Promise<SlotRefusal | undefined>;
  /** Releases the holds `reserve` made under `id`, and adds what the call actually cost to its slots. */
  settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void>;
}

/** One budget a call falls under, and what the call holds of it until it is settled. */
export interface SlotHold {
  slot: string;
  /** The budget's dollars or tokens. */
  limit: number;
  /** The call's worst cost (dollars) or tokens; 0 holds nothing and only checks. */
  amount: number;
}

/** A finished call's cost (or tokens) added to one slot, kept `ttlMs` (the rest of its window). */
export interface SlotCharge {
  slot: string;
  amount: number;
  ttlMs: number;
}

/** Why `reserve` refused: the index of the first full slot, what it has spent and what calls in flight hold. */
export interface SlotRefusal {
  index: number;
  spent: number;
  held: number;
}

interface Held {
  amount: number;
  until: number;
}

/**
 * Spend in this process, bounded: past `max` slots, the least recently charged are forgotten. Its operations change
 * the maps before their first `await`, so each is atomic among the calls of this process.
 */
export class MemorySpendStore implements SpendStore {
  readonly component = 'memory';
  readonly #spent = new Map<string, number>();
  readonly #held = new Map<string, Map<string, Held>>();
  readonly #max: number;

  constructor(max = 100_000) {
    this.#max = max;
  }

  async spent(slot: string): Promise<number> {
    return this.#spent.get(slot) ?? 0;
  }

  async reserve(id: string, holds: readonly SlotHold[], holdMs: number): Promise<SlotRefusal | undefined> {
    const now = Date.now();
    for (const [index, hold] of holds.entries()) {
      const spent = this.#spent.get(hold.slot) ?? 0;
      const held = this.#heldIn(hold.slot, now);
      if (spent + held >= hold.limit) return { index, spent, held };
    }
    for (const hold of holds) {
      if (!(hold.amount > 0)) continue;
      let slot = this.#held.get(hold.slot);
      if (!slot) this.#held.set(hold.slot, (slot = new Map()));
      slot.set(id, { amount: hold.amount, until: now + holdMs });
    }
    if (this.#held.size > this.#max) this.#sweep(now);
    return undefined;
  }

  async settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void> {
    for (const { slot } of released) {
      const held = this.#held.get(slot);
      held?.delete(id);
      if (held?.size === 0) this.#held.delete(slot);
    }
    for (const charge of charges) this.#add(charge.slot, charge.amount);
  }

  #add(slot: string, amount: number): void {
    const total = (this.#spent.get(slot) ?? 0) + amount;
    // Re-inserted, so the map's order is least recently charged first.
    this.#spent.delete(slot);
    this.#spent.set(slot, total);
    if (this.#spent.size > this.#max) this.#spent.delete(this.#spent.keys().next().value!);
  }

  /** What the calls in flight hold of a slot; holds past their time (a call never settled) are dropped. */
  #heldIn(slot: string, now: number): number {
    const held = this.#held.get(slot);
    if (!held) return 0;
    let total = 0;
    for (const [id, { amount, until }] of held) {
      if (until <= now) held.delete(id);
      else total += amount;
    }
    if (held.size === 0) this.#held.delete(slot);
    return total;
  }

  /** Drops every expired hold: the slots of calls that were never settled (a stream nobody read) do not pile up. */
  #sweep(now: number): void {
    for (const slot of [...this.#held.keys()]) this.#heldIn(slot, now);
  }
}
