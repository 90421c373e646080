/**
 * bench/server.ts's workers rows: `switchyard serve --workers n` for each n of `--workers <list>`, at 32 connections.
 * Each worker's RSS is its own VmRSS (the primary's is apart). One worker is pinned to core 0 like the main table's
 * serve; n > 1 workers are left unpinned (they need the cores), while the load generator and the mock stay on
 * core 1 where taskset exists, so with 2 cores the load shares a core with a worker: the rows say what this machine
 * can show, and an n above the cores available (or 4+ on a machine with fewer than 4) is listed as not measured.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pinned } from './pinning.ts';
import { childrenOf, rssMb } from './processes.ts';
import { mockProviderEnv } from './start-mock.ts';

export interface WorkersBench {
  cli: string;
  dataDir: string;
  mockPort: number;
  port: () => Promise<number>;
  body: string;
  seconds: number;
  log: (message: string) => void;
  /** Processes to kill when the bench ends (a crash included). */
  children: ChildProcess[];
}

interface WorkersRow {
  workers: number;
  rps: number;
  errors: number;
  workerRssMb: number[];
  primaryRssMb: number;
}

/** `--workers 1,2` → [1, 2]; an entry that is not a whole number ≥ 1 is an error. */
export function parseWorkerList(list: string): number[] {
  const counts = list.split(',').map((item) => Number(item.trim()));
  if (counts.some((count) => !Number.isInteger(count) || count < 1))
    throw new Error(`--workers: expected whole numbers of 1 or more, comma-separated (got ${list})`);
  return [...new Set(counts)].sort((a, b) => a - b);
}

async function measure(bench: WorkersBench, workers: number): Promise<WorkersRow> {
  const data = join(bench.dataDir, `workers-${workers}`);
  const key = execFileSync(process.execPath, [bench.cli, 'keys', 'create', '--data', data], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const port = await bench.port();
  const argv = [process.execPath, bench.cli, 'serve', '--port', String(port), '--data', data];
  const [command, args] = workers === 1 ? pinned(0, argv) : [argv[0]!, [...argv.slice(1), '--workers', `${workers}`]];
  const child = spawn(command, args, {
    stdio: 'ignore',
    env: {
      ...process.env,
      ...mockProviderEnv(bench.mockPort),
    },
  });
  bench.children.push(child);
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(url, { method: 'POST', headers, body: bench.body }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve --workers ${workers} did not come up`);
    await new Promise((done) => setTimeout(done, 200));
  }
  await autocannon({ url, method: 'POST', headers, body: bench.body, connections: 32, duration: 2 });
  const pids = workers === 1 ? [child.pid!] : childrenOf(child.pid!);
  const peak = new Map(pids.map((pid) => [pid, rssMb(pid)]));
  const sample = () => {
    for (const pid of pids) peak.set(pid, Math.max(peak.get(pid)!, rssMb(pid) || 0));
  };
  const timer = setInterval(sample, 500);
  const run = await autocannon({
    url,
    method: 'POST',
    headers,
    body: bench.body,
    connections: 32,
    duration: bench.seconds,
  });
  clearInterval(timer);
  sample();
  const row = {
    workers,
    rps: run['2xx'] / run.duration,
    errors: run.errors + run.non2xx + run.timeouts,
    workerRssMb: [...peak.values()],
    primaryRssMb: workers === 1 ? Number.NaN : rssMb(child.pid!),
  };
  child.kill('SIGKILL');
  for (const pid of pids) if (pid !== child.pid) process.kill(pid, 'SIGKILL');
  return row;
}

/** Measures each count of `counts` that this machine can show, and prints the rows and what was not measured. */
export async function benchWorkers(bench: WorkersBench, counts: number[]): Promise<string[]> {
  // The machine's cores, not this process's: the load generator is pinned to one (availableParallelism would say 1).
  const cores = cpus().length;
  const rows: WorkersRow[] = [];
  const skipped = counts.filter((count) => count > cores || (count >= 4 && cores < 4));
  for (const count of counts.filter((count) => !skipped.includes(count))) {
    bench.log(`serve --workers ${count}: ${bench.seconds} s at 32 connections…`);
    rows.push(await measure(bench, count));
  }
  const f = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '');
  const one = rows.find((row) => row.workers === 1);
  const lines = [
    `| serve --workers n (this machine: ${cores} cores) | c32 RPS | vs 1 worker | c32 errors | ` +
      'RSS max per worker MB (each VmRSS) | primary RSS MB |',
    '|---|---:|---:|---:|---|---:|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.workers === 1 ? '1 (pinned to core 0)' : `${row.workers} (unpinned)`} | ${f(row.rps)} | ` +
        `${one ? `${f(row.rps / one.rps, 2)}×` : ''} | ${row.errors} | ` +
        `${row.workerRssMb.map((mb) => f(mb)).join(', ')} | ${f(row.primaryRssMb)} |`,
    );
  if (skipped.length > 0)
    lines.push(
      `workers ${skipped.join(', ')}: not measured on this machine (${cores} cores; n = 4 and more needs a machine ` +
        'with at least 4, and more workers than cores measures contention, not scaling)',
    );
  if (cores <= 2 && rows.some((row) => row.workers > 1))
    lines.push(
      `with ${cores} cores the load generator and the mock share a core with the workers: the n > 1 rows are a ` +
        'floor, not the scaling of a machine with a core to spare',
    );
  return lines;
}
