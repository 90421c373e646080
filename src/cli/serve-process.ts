/** What `switchyard serve` does to its own process: a bounded young generation, and warnings as JSON log lines. */

/**
 * `serve` logs JSON lines on stderr; Node's own warning printer would add lines that are not JSON (Node 22 warns
 * that SQLite is experimental when it loads). Warnings become log lines of level `warn` instead.
 */
export function logWarningsAsJsonLines(): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    const line = {
      time: new Date().toISOString(),
      level: 'warn',
      msg: warning.message,
      warning: warning.name,
      ...(warning.code ? { code: warning.code } : {}),
    };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  });
}

/**
 * Under load V8 grows its young generation to 64 MB semi-spaces (RSS ~230 MB where ~160 MB do), and that size can
 * only be set when the process starts. So `serve` replaces its own process (same pid, no parent left behind) with
 * one started with `--max-semi-space-size=16`. It does not when the user chose a size (in the node flags or
 * NODE_OPTIONS), when it already did (the environment marker), when it has an IPC channel to a parent (`fork`, PM2:
 * only stdio survives exec), or when the runtime has no `process.execve` (before Node 22.15 / 23.11, Windows).
 */
export function restartWithBoundedYoungGeneration(): void {
  const marker = 'SWITCHYARD_SERVE_REEXECUTED';
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) =>
    /^["']?--max[-_]semi[-_]space[-_]size/.test(arg),
  );
  if (chosen || process.env[marker] || process.channel || !process.execve) return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, '--max-semi-space-size=16', ...process.execArgv, ...process.argv.slice(1)],
      { ...process.env, [marker]: '1' },
    );
  } catch {
    // Not permitted here (a sandbox, a worker): serve with V8's defaults.
  }
}
