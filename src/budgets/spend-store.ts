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
   * The time budget windows are read in, when the store has a clock of its own that every process sharing it should
   * use (Redis's: replicas with skewed clocks would charge different days near midnight). This process's otherwise.
   */
  now?(): Date;
  /**
   * Atomically, for every slot at once: refused (the first slot without room) unless each slot's spent + held is under
   * its limit; else each `amount` is held under `id` until `settle`, or until `holdMs` passes (a replica that died).
   */
  reserve(id: string, holds: readonly SlotHold[], holdMs: number): Promise<SlotRefusal | undefined>;
  /**
   * Releases the holds `reserve` made under `id`, and adds what the call actually cost to its slots. May be sent
   * again after a failure (`settleRetried`): a store that can fail after applying it (Redis: a timeout) applies a
   * call's charges once per `id`.
   */
  settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void>;
}

/** One budget a call falls under, and what the call holds of it until it is settled. */
export interface SlotHold {
  slot: string;
  /**
   * The group the slot may be forgotten within, least recently charged first, when a store must bound its memory (a
   * tenant's traces, workflows and agents: flooding them forgets only the tenant's own). Absent: never forgotten inside
   * its window.
   */
  pool?: string | undefined;
  /** The budget's dollars or tokens. */
  limit: number;
  /** The call's worst cost (dollars) or tokens; 0 holds nothing and only checks. */
  amount: number;
}

/** A finished call's cost (or tokens) added to one slot, kept `ttlMs` (the rest of its window). */
export interface SlotCharge {
  slot: string;
  /** As `SlotHold.pool`. */
  pool?: string | undefined;
  amount: number;
  ttlMs: number;
}

/** Why `reserve` refused: the index of the first full slot, what it has spent and what calls in flight hold. */
export interface SlotRefusal {
  index: number;
  spent: number;
  held: number;
}

/** A store that cannot count one more budget without forgetting one inside its window (`MemorySpendStore`). */
export class SpendStoreFullError extends Error {
  override name = 'SpendStoreFullError';
}
