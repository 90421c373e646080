/**
 * Asks `probe` again, `everyMs` after each failure, until it succeeds; once `timeoutMs` has passed (a bound against
 * a hang) its last failure is thrown. A poll on a condition, not a fixed wait: the one of the helpers that also run
 * outside vitest (bench/); tests use `expect.poll` and `vi.waitFor`.
 */
export async function pollUntil<T>(probe: () => Promise<T>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (performance.now() > deadline) throw error;
    }
    await new Promise((retry) => setTimeout(retry, everyMs));
  }
}
