import { existsSync } from 'node:fs';
import v8 from 'node:v8';
import type { RunningServer } from '../server/start-server.ts';

/** What `switchyard serve` does to its own process: bounded heap growth, and warnings as JSON log lines. */

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
 * The young generation's semi-spaces, in MB: 8 where V8 would grow them to 64 under load. 4 MB (with glibc's malloc
 * arenas at 2) saves 10–15 MB of RSS but costs ~10 % of the requests a second on a quiet machine: throughput is kept
 * by default, the leaner setting is the operator's (`NODE_OPTIONS=--max-semi-space-size=4`, `MALLOC_ARENA_MAX=2`:
 * kept as given; docs/performance.md, "Serve in 120 MB").
 */
const SEMI_SPACE_MB = 8;
/** The old generation may grow 50 % past what is live after a collection, where V8 would allow up to 4×. */
const HEAP_GROWING_PERCENT = 50;
/** serve's heap bounds as node flags: what bench/server.ts gives its essential gateway, to compare like with like. */
export const SERVE_HEAP_FLAGS = [
  `--max-semi-space-size=${SEMI_SPACE_MB}`,
  `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
];

/**
 * jemalloc where the system has it (Debian and Ubuntu: `libjemalloc2`; Fedora, Alpine: `jemalloc`), preloaded into the
 * restarted process. glibc's malloc keeps the memory it grew under load (its main heap held 10–34 MB more after a
 * burst); jemalloc hands freed pages back. Measured at 32 connections, 8 MB semi-spaces (bench/serve-memory.ts, 20 s
 * runs alternated): the highest RSS 117–119 MB against 135–144 with glibc, CPU a request within the runs' noise.
 * Found only in these system directories, never on a path from the environment.
 */
const JEMALLOC_DIRS = ['/usr/lib64', '/usr/lib'];
/** Debian's and Ubuntu's directory of this architecture's libraries (another architecture's would not load). */
const MULTIARCH: Partial<Record<NodeJS.Architecture, string>> = {
  x64: '/usr/lib/x86_64-linux-gnu',
  arm64: '/usr/lib/aarch64-linux-gnu',
};
/** Freed pages go back at once: of the settings measured, the lowest RSS (a 1 s decay: 118–120 MB). */
const JEMALLOC_CONF = 'dirty_decay_ms:0,muzzy_decay_ms:0';

/**
 * The environment that preloads jemalloc, or `undefined`: not on Linux, not installed, the operator's own
 * `LD_PRELOAD` (kept), or `SWITCHYARD_MALLOC=system` (glibc's malloc). The operator's `MALLOC_CONF` is kept too.
 */
export function allocatorEnvironment(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  if (env.LD_PRELOAD || env.SWITCHYARD_MALLOC === 'system') return undefined;
  const library = jemallocLibrary();
  if (!library) return undefined;
  return { LD_PRELOAD: library, ...(env.MALLOC_CONF ? {} : { MALLOC_CONF: JEMALLOC_CONF }) };
}

/** The system's jemalloc for this architecture, if installed (Linux only). */
function jemallocLibrary(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const dirs = [MULTIARCH[process.arch], ...JEMALLOC_DIRS].filter((dir) => dir !== undefined);
  return dirs.map((dir) => `${dir}/libjemalloc.so.2`).find((path) => existsSync(path));
}

/**
 * Why `SWITCHYARD_MALLOC` cannot be had, or `undefined`: unset (jemalloc where the system has it), `system`, or
 * `jemalloc` where it is installed. Anything else, or `jemalloc` without it, is refused at start, never ignored.
 */
export function allocatorChoiceError(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env.SWITCHYARD_MALLOC;
  if (!chosen || chosen === 'system' || (chosen === 'jemalloc' && jemallocLibrary())) return undefined;
  if (chosen !== 'jemalloc') return `SWITCHYARD_MALLOC must be "jemalloc" or "system", not "${chosen.slice(0, 40)}".`;
  return 'SWITCHYARD_MALLOC=jemalloc, but jemalloc is not installed (Debian, Ubuntu: apt-get install libjemalloc2).';
}

/**
 * Under load V8 grows its young generation to 64 MB semi-spaces and lets the old generation grow to several times
 * what is live: a server whose live data is ~30 MB held ~190 MB (RSS) under 32 connections. So `serve` bounds both:
 * the semi-spaces can only be set when the process starts, so it replaces its own process (same pid, no parent left
 * behind) with one started with `--max-semi-space-size=8`; the old generation's growth is read at each collection,
 * so it is set in place; the same restart preloads jemalloc when the system has it (`allocatorEnvironment`).
 * `serve --workers` forks its workers from the restarted primary: they inherit its flags (`process.execArgv`) and
 * environment, so each worker is bounded the same way and runs on the same allocator.
 * A value the user chose (in the node flags or NODE_OPTIONS) is kept. It does not restart when it already did (the
 * environment marker), when it has an IPC channel to a parent (`fork`, PM2: only stdio survives exec), when the
 * runtime has no `process.execve` (before Node 22.15 / 23.11, Windows), or on Bun.
 */
export function boundServeMemory(): void {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const chose = (flag: string) => flags.some((arg) => new RegExp(`^["']?--${flag.replaceAll('-', '[-_]')}`).test(arg));
  if (!chose('heap-growing-percent')) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const marker = 'SWITCHYARD_SERVE_REEXECUTED';
  // Bun has `process.execve` but not V8: no young generation to size, and an allocator measured under Node only.
  if (process.env[marker] || process.channel || !process.execve || process.versions.bun) return;
  const semiSpace = chose('max-semi-space-size') ? [] : [`--max-semi-space-size=${SEMI_SPACE_MB}`];
  const allocator = allocatorEnvironment(process.env);
  if (semiSpace.length === 0 && !allocator) return;
  try {
    process.execve(process.execPath, [process.execPath, ...semiSpace, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env,
      ...allocator,
      [marker]: '1',
    });
  } catch {
    // Not permitted here (a sandbox, a worker): serve with V8's default young generation.
  }
}

/** How long a second signal's shutdown may take (it aborts what is in flight) before the process exits anyway. */
export const STOP_NOW_GRACE_MS = 10_000;

/**
 * SIGINT and SIGTERM close the server: the first lets requests in flight finish, a second aborts them (every call
 * is still recorded), a third exits at once.
 */
export function stopOnSignals(server: RunningServer): void {
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals += 1;
    // A third signal exits at once, whatever is left.
    if (signals > 2) process.exit(130);
    const now = signals === 2;
    const msg = now ? 'shutting down now' : 'shutting down';
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg, signal })}\n`);
    // Once a second signal came, the shutdown it cut short ends with 130 too.
    if (!now)
      return void server.close().then(
        () => process.exit(signals > 1 ? 130 : 0),
        () => process.exit(1),
      );
    // A second one stops waiting for in-flight requests (they are aborted), but still writes every call's record.
    setTimeout(() => process.exit(130), STOP_NOW_GRACE_MS).unref();
    server.closeNow().then(
      () => process.exit(130),
      () => process.exit(130),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
