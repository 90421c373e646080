import type { SlotCharge, SlotHold, SpendStore } from './spend-store.ts';

/** How long a call's charges are sent again while the store fails: past it, the charge is lost (an undercount). */
export const CHARGE_RETRY_MS = 5 * 60_000;

/**
 * A settle made off the request's path, asked again while the store fails (Redis restarting): after 0.5 s, then
 * twice as long each time (at most a minute), until `horizonMs` from now. Resolves or rejects as the first attempt
 * did (the caller may wait for it); the retries go on by themselves. Safe to repeat: a release of a hold already
 * released (or never taken) does nothing, and a store that may fail after applying a settle (Redis: a timeout)
 * applies a call's charges once per id.
 */
export function settleRetried(
  store: SpendStore,
  id: string,
  released: readonly SlotHold[],
  charges: readonly SlotCharge[],
  horizonMs: number,
): Promise<void> {
  const ends = Date.now() + horizonMs;
  const again = (waitMs: number) => {
    if (Date.now() + waitMs >= ends) return;
    setTimeout(
      () => store.settle(id, released, charges).catch(() => again(Math.min(waitMs * 2, 60_000))),
      waitMs,
    ).unref?.();
  };
  const first = store.settle(id, released, charges);
  first.catch(() => again(500));
  return first;
}

/**
 * Gives holds back: when a call ends, or when a reserve failed as seen from here (a timeout: Redis may still take
 * the hold once it answers, and nobody would then release it), retried until the holds would have lapsed by
 * themselves (`holdMs`): a slot held that long would lock a key with one slot out, or a budget.
 */
export function giveBack(store: SpendStore, id: string, holds: readonly SlotHold[], holdMs: number): void {
  settleRetried(store, id, holds, [], holdMs).catch(() => {});
}
