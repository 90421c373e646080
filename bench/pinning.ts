import { execFileSync } from 'node:child_process';

/**
 * Core pinning for the server benchmarks, when `taskset` exists: servers under test on core 0; the calling process
 * (the load generator) and the mock it forks afterwards on core 1.
 */
export const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Moves this process (all its threads) to core 1. Call it before starting the mock, which inherits it. */
export function pinSelfToLoadCore(): void {
  if (hasTaskset) execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
}

/** The command and arguments that run `argv` pinned to `core` (unpinned without taskset). */
export function pinned(core: number, argv: string[]): [string, string[]] {
  return hasTaskset ? ['taskset', ['-c', String(core), ...argv]] : [argv[0]!, argv.slice(1)];
}
