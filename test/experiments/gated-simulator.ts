import { MockProvider, type MockRequest } from '../../src/testing/index.ts';

/** The prompt of the experiment tests, and `count` inputs for it. */
export const PROMPT = [{ role: 'user' as const, content: 'Say {{word}}' }];
export const inputs = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ variables: { word: `w${index}` } }));

export type GatedSimulator = ReturnType<typeof gatedSimulator>;

/** A simulator whose answers wait for `releaseAll`, counting the calls in flight. */
export function gatedSimulator() {
  let inFlight = 0;
  let most = 0;
  const waiting: Array<() => void> = [];
  const simulator = new MockProvider({
    respond: async (request: MockRequest) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight -= 1;
      return `answer for ${request.model}`;
    },
  });
  const releaseAll = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { simulator, releaseAll, most: () => most, waiting: () => waiting.length };
}

/** Lets every gated answer go, again and again, until `runs` settle. */
export async function releaseUntil(runs: Promise<unknown>, simulators: GatedSimulator[]): Promise<void> {
  let ended = false;
  void runs.then(
    () => (ended = true),
    () => (ended = true),
  );
  while (!ended) {
    for (const gated of simulators) gated.releaseAll();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await runs;
}
