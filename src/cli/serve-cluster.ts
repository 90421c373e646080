import { InvalidArgumentError } from 'commander';
import type { ClusterWorker } from '../server/cluster/worker-role.ts';
import type { RunningServer } from '../server/start-server.ts';
import { availableCores } from './available-cores.ts';
import { explainListenError } from './serve-checks.ts';
import { STOP_NOW_GRACE_MS } from './serve-process.ts';

/**
 * `serve --workers <n>`: a primary that forks `n` workers (node:cluster) on one port, and the workers themselves,
 * which run the same command with the same options (docs/serve.md, "Every core").
 */

/** The most workers `--workers` starts. */
const MAX_WORKERS = 256;

/** `--workers`: a number of processes, or `auto` for the cores this process may use (its CPU quota included). */
export function parseWorkers(value: string): number {
  if (value === 'auto') return availableCores();
  const count = Number(value);
  // Each worker is a process of ~100 MB: past this, a typo, not a machine.
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS)
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_WORKERS}, or auto`);
  return count;
}

/** The primary: starts the workers, writes the start's summary once, and stops them all on SIGINT or SIGTERM. */
export async function servePrimary(workers: number, address: { host: string; port: number }): Promise<void> {
  const { openServerLog } = await import('../server/compose/server-log.ts');
  const { WorkerPool } = await import('../server/cluster/primary.ts');
  const log = openServerLog(undefined);
  const pool = new WorkerPool(workers, address, log);
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals += 1;
    // A third signal ends every worker at once.
    if (signals > 2) {
      pool.kill();
      process.exit(130);
    }
    log.info(signals === 2 ? 'shutting down now' : 'shutting down', { signal, workers });
    if (signals > 1) {
      // As a single serve: whatever still holds a worker after 10 s (a hung worker, a store that stopped answering)
      // is cut off, and the server ends.
      setTimeout(() => {
        pool.kill();
        process.exit(130);
      }, STOP_NOW_GRACE_MS).unref();
      return void pool.stop(true);
    }
    void pool.stop(false).then(() => {
      log.info('stopped', { workers });
      log.end();
      process.exit(signals > 1 ? 130 : 0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const started = await pool.start().catch((error: unknown) => {
    log.end();
    explainListenError(error, address.host, address.port);
  });
  if (started) return;
  log.end();
  process.exit(1);
}

/**
 * A worker: the server, counting with the primary. It stops when the primary orders it (or is gone): a terminal's
 * Ctrl-C and a service manager's SIGTERM reach every process of the group, and only the primary's order counts, so
 * all stop together and none is replaced meanwhile.
 */
export async function serveWorker(start: (worker: ClusterWorker) => Promise<RunningServer>): Promise<void> {
  const { joinCluster } = await import('../server/cluster/worker-role.ts');
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  const worker = joinCluster();
  // Ordered to stop while it starts (waiting for its database, say), before it listens: it has taken no request, so
  // it goes at once. Once it listens, the order waits for the server, which drains (below).
  worker.onStop(() => {
    if (!worker.listens) process.exit(0);
  });
  const server = await start(worker).catch((error: unknown) => {
    // A worker that cannot start leaves once the CLI has said why (its channel to the primary would keep it alive,
    // and its signals are the primary's); the primary, hearing it exit, stops the start.
    worker.onStop(() => undefined);
    process.disconnect?.();
    throw error;
  });
  let stopping = false;
  worker.onStop((now) => {
    const exit = (code: number) => () => process.exit(code);
    if (now) return void server.closeNow().then(exit(130), exit(1));
    if (stopping) return;
    stopping = true;
    server.close().then(exit(0), exit(1));
  });
}
