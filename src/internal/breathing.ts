import { afterThisTurn } from './runtime.ts';
/**
 * A long loop over a store gives the event loop a turn now and then: node:sqlite answers synchronously, and an
 * `await` of a settled promise lets no other request in, so an experiment of 10,000 cells, a sample of 1,000 calls,
 * or a record queue's drain of many batches would otherwise run as one block while every other caller waits.
 */
export type Breathe = () => Promise<void>;

/** Resolves at once, or on the next turn of the event loop when `sliceMs` have passed since the last turn given. */
export function breather(sliceMs = 10): Breathe {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => afterThisTurn(resolve));
    since = performance.now();
  };
}
