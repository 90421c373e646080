import { expect } from 'vitest';

/**
 * Another tenant's experience of the server while an attack runs: it sends one small request of its own after
 * another (its key, its data) and its latencies are kept. A server whose event loop one tenant stalls, or whose
 * memory one tenant fills, makes every other tenant wait: their p95 shows it. The suites of test/tenancy/ run each
 * attack through `duringAttack` and bound the other tenant's p95 with `expectNotStalled`, a generous bound that
 * catches a stall of seconds, not a micro-timing.
 */

/** What `expectNotStalled` allows the other tenant's p95 by default: far above a loaded machine's noise. */
export const STALL_BOUND_MS = 2_000;

export interface LatencyReport {
  /** Probes that ended while the attack ran (the warm-up left out). */
  requests: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  /** Probes that did not succeed, as `<status or error>: <text>`: the other tenant must be answered, not refused. */
  failures: string[];
}

export interface OtherTenant {
  /**
   * One request of the other tenant, resolving once it is answered in full; it throws (or rejects) when the answer
   * is not a success. `probeOf` makes one from a fetch.
   */
  probe: () => Promise<void>;
  /** Pause between two probes (default 20 ms): a tenant going about its work, not a flood of its own. */
  pauseMs?: number;
}

/**
 * Runs `attack` while the other tenant probes the server, one request after another. The first probe is answered
 * before the attack starts (a warm-up, not counted); probing stops once the attack has settled and the probe then
 * in flight is answered, so a probe stalled by the attack's last moments is counted too. Each probe's latency runs
 * from when it was due (`pauseMs` after the last one ended) to its answer. The attack's rejection is thrown after
 * probing stops.
 */
export async function duringAttack<T>(
  tenant: OtherTenant,
  attack: () => Promise<T>,
): Promise<{ result: T; latency: LatencyReport }> {
  const pauseMs = tenant.pauseMs ?? 20;
  await tenant.probe();
  const latencies: number[] = [];
  const failures: string[] = [];
  let attacking = true;
  const probing = (async () => {
    // A probe's wait counts from when it was due, not from when this process got round to sending it: the server
    // runs in this process, and a stall that starts during the pause delays the sending (a client elsewhere would
    // have sent and waited).
    let due = performance.now();
    while (attacking) {
      try {
        await tenant.probe();
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
      const ended = performance.now();
      latencies.push(ended - due);
      due = ended + pauseMs;
      if (attacking) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  let outcome: { result: T } | { error: unknown };
  try {
    outcome = { result: await attack() };
  } catch (error) {
    outcome = { error };
  }
  attacking = false;
  await probing;
  if ('error' in outcome) throw outcome.error;
  return { result: outcome.result, latency: reportOf(latencies, failures) };
}

/** The other tenant was answered, every time, and its p95 stayed under `boundMs`. */
export function expectNotStalled(latency: LatencyReport, boundMs = STALL_BOUND_MS): void {
  const summary = JSON.stringify(latency);
  expect(latency.failures, `the other tenant was refused: ${summary}`).toEqual([]);
  expect(latency.requests, `the other tenant sent no request during the attack: ${summary}`).toBeGreaterThan(0);
  expect(latency.p95_ms, `the other tenant waited: ${summary}`).toBeLessThan(boundMs);
}

/**
 * A probe from a fetch: the answer's body read to its end, a status other than 2xx a failure naming the status and
 * the start of the body.
 */
export function probeOf(send: () => Promise<Response>): () => Promise<void> {
  return async () => {
    const response = await send();
    const body = await response.text();
    if (!response.ok) throw new Error(`${response.status}: ${body.slice(0, 200)}`);
  };
}

/** The other tenant asks for a small chat completion with its own key (the mock model answers it at once). */
export function chatProbe(url: string, key: string): () => Promise<void> {
  return probeOf(() =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] }),
    }),
  );
}

function reportOf(latencies: number[], failures: string[]): LatencyReport {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (rank: number) => Math.round(sorted[Math.max(0, Math.ceil(rank * sorted.length) - 1)] ?? 0);
  return { requests: sorted.length, p50_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1), failures };
}
