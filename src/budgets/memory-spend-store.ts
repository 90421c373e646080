import {
  type SlotCharge,
  type SlotHold,
  type SlotRefusal,
  type SpendStore,
  SpendStoreFullError,
} from './spend-store.ts';

/** How often at most a full store walks every slot for those whose window is over. */
const SWEEP_EVERY_MS = 1_000;

interface Held {
  amount: number;
  until: number;
}

/** One budget counted here: what it spent, until when it must be kept, and the holds of the calls in flight. */
interface Slot {
  spent: number;
  /** The end of its window (its latest charge's time to live) or of its latest hold: only then may it go. */
  keepUntil: number;
  holds: Map<string, Held> | undefined;
  pool: string | undefined;
}

/**
 * Spend in this process, bounded without forgetting what matters. A slot of a pool (a tenant's traces, workflows and
 * agents: values callers name freely) goes when the pools together hold `max`: the least recently charged of the
 * largest pool, so a tenant that floods new traces forgets only its own. Any other slot (a key's; an agent's of a
 * call without a tenant) is never forgotten inside its window: once `max` of them are live, a call that needs one
 * more is refused (`SpendStoreFullError`), never let past a budget this process forgot. Operations change the maps
 * before their first `await`, so each is atomic among the calls of this process.
 */
export class MemorySpendStore implements SpendStore {
  readonly component = 'memory';
  readonly #slots = new Map<string, Slot>();
  /** Each pool's slots, least recently charged first. */
  readonly #pools = new Map<string, Set<string>>();
  readonly #max: number;
  #fixed = 0;
  #pooled = 0;
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(max = 100_000) {
    this.#max = Math.max(1, Math.floor(max));
  }

  /** Slots counted: those kept for their window (keys, agents), and those of the pools (tenants' traces, agents). */
  get size(): { fixed: number; pooled: number } {
    return { fixed: this.#fixed, pooled: this.#pooled };
  }

  async spent(slot: string): Promise<number> {
    return this.#live(slot, Date.now())?.spent ?? 0;
  }

  async reserve(id: string, holds: readonly SlotHold[], holdMs: number): Promise<SlotRefusal | undefined> {
    const now = Date.now();
    for (const [index, hold] of holds.entries()) {
      const slot = this.#live(hold.slot, now);
      const spent = slot?.spent ?? 0;
      const held = slot ? heldIn(slot, now) : 0;
      if (spent + held >= hold.limit) return { index, spent, held };
    }
    const holding = holds.filter((hold) => hold.amount > 0);
    this.#roomFor(holding.filter((hold) => hold.pool === undefined && !this.#slots.has(hold.slot)).length, now);
    for (const hold of holding) {
      const slot = this.#slotOf(hold.slot, hold.pool, now);
      (slot.holds ??= new Map()).set(id, { amount: hold.amount, until: now + holdMs });
      slot.keepUntil = Math.max(slot.keepUntil, now + holdMs);
    }
    return undefined;
  }

  async settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void> {
    const now = Date.now();
    for (const { slot } of released) this.#slots.get(slot)?.holds?.delete(id);
    for (const { slot: key, pool, amount, ttlMs } of charges) {
      // A window that turned while the call ran may need a new slot: kept, past `max` by the calls in flight at most.
      const slot = this.#slotOf(key, pool, now);
      slot.spent += amount;
      slot.keepUntil = Math.max(slot.keepUntil, now + ttlMs);
      const order = pool === undefined ? undefined : this.#pools.get(pool);
      order?.delete(key);
      order?.add(key);
    }
    // A call that paid nothing leaves nothing behind.
    for (const { slot: key } of released) {
      const slot = this.#slots.get(key);
      if (slot && slot.spent === 0 && !slot.holds?.size) this.#forget(key, slot);
    }
  }

  /** The slot, unless its window is over and no call holds any of it (then it is forgotten). */
  #live(key: string, now: number): Slot | undefined {
    const slot = this.#slots.get(key);
    if (!slot || slot.keepUntil > now || heldIn(slot, now) > 0) return slot;
    this.#forget(key, slot);
    return undefined;
  }

  /** The slot, made when it is new: in a pool past `max`, the least recently charged of the largest pool goes. */
  #slotOf(key: string, pool: string | undefined, now: number): Slot {
    const known = this.#slots.get(key);
    if (known) return known;
    if (pool !== undefined && this.#pooled >= this.#max) this.#forgetPooled(now);
    const slot: Slot = { spent: 0, keepUntil: now, holds: undefined, pool };
    this.#slots.set(key, slot);
    if (pool === undefined) {
      this.#fixed += 1;
      return slot;
    }
    let order = this.#pools.get(pool);
    if (!order) this.#pools.set(pool, (order = new Set()));
    order.add(key);
    this.#pooled += 1;
    return slot;
  }

  /** Throws `SpendStoreFullError` unless `count` more slots kept for their window fit (after a sweep, when full). */
  #roomFor(count: number, now: number): void {
    if (count === 0 || this.#fixed + count <= this.#max) return;
    if (now - this.#sweptAt >= SWEEP_EVERY_MS) this.#sweep(now);
    if (this.#fixed + count <= this.#max) return;
    throw new SpendStoreFullError(
      `this process counts ${this.#fixed} budgets inside their window (keys; agents of calls without a key), the ` +
        'most it keeps (budgets.maxTracked); it forgets none before its window ends. Count budgets in Redis to hold ' +
        'more.',
    );
  }

  /** Makes room in the pools: their expired slots first, else the least recently charged of the largest pool. */
  #forgetPooled(now: number): void {
    if (now - this.#sweptAt >= SWEEP_EVERY_MS) this.#sweep(now);
    if (this.#pooled < this.#max) return;
    let largest: Set<string> | undefined;
    for (const order of this.#pools.values()) if (!largest || order.size > largest.size) largest = order;
    const oldest = largest?.values().next().value;
    if (oldest !== undefined) this.#forget(oldest, this.#slots.get(oldest)!);
  }

  /** Forgets every slot whose window is over, and every hold past its time (a call never settled). */
  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const key of this.#slots.keys()) this.#live(key, now);
  }

  #forget(key: string, slot: Slot): void {
    if (!this.#slots.delete(key)) return;
    if (slot.pool === undefined) {
      this.#fixed -= 1;
      return;
    }
    this.#pooled -= 1;
    const order = this.#pools.get(slot.pool);
    order?.delete(key);
    if (order?.size === 0) this.#pools.delete(slot.pool);
  }
}

/** What the calls in flight hold of a slot; holds past their time (a call never settled) are dropped. */
function heldIn(slot: Slot, now: number): number {
  if (!slot.holds) return 0;
  let total = 0;
  for (const [id, { amount, until }] of slot.holds) {
    if (until <= now) slot.holds.delete(id);
    else total += amount;
  }
  return total;
}
