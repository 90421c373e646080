import type { SlotHold, SpendStore } from './spend-store.ts';

/**
 * Gives holds back, off the request's path: when a call ends, or when a reserve failed as seen from here (a timeout:
 * Redis may still take the hold once it answers, and nobody would then release it). A store that fails meanwhile
 * (Redis restarting) is asked again after 0.5 s, then twice as long each time (at most a minute), until the holds
 * would have lapsed by themselves (`holdMs` from now): a slot held that long would lock a key with one slot out, or
 * a budget. Releasing twice, or a hold never taken, is harmless.
 */
export function giveBack(store: SpendStore, id: string, holds: readonly SlotHold[], holdMs: number): void {
  const lapses = Date.now() + holdMs;
  const attempt = (waitMs: number) => {
    store.settle(id, holds, []).catch(() => {
      if (Date.now() + waitMs >= lapses) return;
      setTimeout(() => attempt(Math.min(waitMs * 2, 60_000)), waitMs).unref?.();
    });
  };
  attempt(500);
}
