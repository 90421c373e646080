import { MockProvider, type MockRequest } from '../../src/testing/index.ts';

/** The prompt of the experiment tests, and `count` inputs for it. */
export const PROMPT = [{ role: 'user' as const, content: 'Say {{word}}' }];
export const inputs = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ variables: { word: `w${index}` } }));

export type GatedSimulator = ReturnType<typeof gatedSimulator>;

/** A simulator whose answers wait until it is opened, counting the calls in flight. */
export function gatedSimulator() {
  let inFlight = 0;
  let most = 0;
  let opened = false;
  const waiting: Array<() => void> = [];
  const simulator = new MockProvider({
    respond: async (request: MockRequest) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (!opened) await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight -= 1;
      return `answer for ${request.model}`;
    },
  });
  /** Lets the answers waiting now go. */
  const releaseAll = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  /** Lets every answer waiting go, and every later one through at once. */
  const open = () => {
    opened = true;
    releaseAll();
  };
  return { simulator, releaseAll, open, most: () => most, waiting: () => waiting.length };
}

/** Opens every gate, then waits for `runs` to settle. */
export async function releaseUntil(runs: Promise<unknown>, simulators: GatedSimulator[]): Promise<void> {
  for (const gated of simulators) gated.open();
  await runs;
}
