/** How long `serve` keeps trying, when it starts, to reach an engine replicas share (Redis, PostgreSQL), by default. */
export const DEFAULT_START_WAIT_MS = 30_000;
/** Pauses between attempts at the start: 250 ms, doubling, at most 2 s. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 2_000;

export interface EngineStart {
  /** How long to keep trying before the start fails (0: one attempt). */
  waitMs: number;
  log: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;
}

/**
 * One attempt's outcome: what it opened, or why it failed (its message already without secrets). `refused`: the
 * engine answered and said no (a wrong password), which waiting will not change.
 */
export type StartAttempt<Opened> = { opened: Opened } | { cause: string; refused: boolean };

/**
 * Tries `attempt` until it opens the engine. An engine that is restarting, paused or failing over when a replica
 * starts is waited for (`start.waitMs`), each failed attempt logged with its cause (`<component> not reachable yet;
 * retrying`); one that refuses, or still fails when the wait is over, fails the start naming the cause and the
 * attempts. What `attempt` throws fails the start at once, as it is.
 */
export async function waitForEngine<Opened>(
  engine: { component: 'redis' | 'postgres'; name: string },
  start: EngineStart,
  attempt: () => Promise<StartAttempt<Opened>>,
): Promise<Opened> {
  const began = performance.now();
  for (let attempts = 1; ; attempts++) {
    const outcome = await attempt();
    if ('opened' in outcome) {
      if (attempts > 1) start.log('info', `${engine.component} reachable`, { component: engine.component, attempts });
      return outcome.opened;
    }
    const waited = performance.now() - began;
    // The last pause is cut to the wait's end, for a last attempt then.
    const pause = Math.min(FIRST_PAUSE_MS * 2 ** (attempts - 1), LONGEST_PAUSE_MS, start.waitMs - waited);
    if (outcome.refused || pause <= 0) {
      const over = (waited / 1000).toFixed(1);
      const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
      throw new Error(`${engine.name} could not be reached after ${tries} over ${over} s: ${outcome.cause}`);
    }
    start.log('warn', `${engine.component} not reachable yet; retrying`, {
      component: engine.component,
      attempt: attempts,
      error: outcome.cause,
      retry_in_ms: Math.round(pause),
      waited_ms: Math.round(waited),
      wait_ms: start.waitMs,
    });
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
