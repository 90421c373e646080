/**
 * The CPU `switchyard serve` spends per request answered, in the server's process(es): a plain `serve`, and
 * `serve --workers n` split into what the workers spend and what the primary spends (the counters it keeps for them,
 * asked over IPC), each with and without `--rate-limit`. CPU time (utime + stime of /proc/<pid>/stat, every thread)
 * divided by the 2xx answers counts what the server did, whatever else shares the machine; RPS does not. The
 * workers' kernel share (stime) is given apart: system calls on loopback also run the receiving side's TCP work. So is
 * their helper threads' share (V8's garbage collection and compilation threads, libuv's pool): what the main thread
 * did not spend itself.
 *
 *   npm run build   (or node_modules/.bin/tsup), then
 *   node bench/serve-cpu.ts [--duration 8] [--rounds 3] [--modes plain,2@0,2] [--rate-limit off,on]
 *       [--before <tree>]
 *
 * - bench/mock-server.ts is the provider; autocannon at 32 connections. This process and the mock on core 1
 *   (`taskset`); a plain serve on core 0. `--workers 1` is that same plain serve (no cluster), so the cluster's own
 *   cost is seen with `2@0`: two workers and their primary all on core 0, the cores a plain serve has; `2` leaves
 *   them unpinned (they share core 1 with the load, as on a 2-core machine they must).
 * - `--rate-limit on` gives serve a rate no run reaches (each request then also takes from the key's bucket).
 * - `--before <tree>`: another checkout built with `npm run build`; each configuration runs on both builds.
 * - Every configuration (and build) runs once per round, in an order that alternates round by round, so noise from
 *   others on the machine shows as spread: the table gives the median and every round's figure.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { pinned, pinSelfToLoadCore } from './pinning.ts';
import { childrenOf, cpuSeconds, freePort } from './processes.ts';
import { mockProviderEnv, startMock } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'plain,1,2' },
    'rate-limit': { type: 'string', default: 'off,on' },
    before: { type: 'string' },
  },
});
const seconds = Number(args.duration);
const rounds = Number(args.rounds);
/** `plain`: serve without --workers (as `--workers 1`: no cluster); `n`: n workers unpinned; `n@0`: on core 0. */
const modes = args.modes.split(',').map((mode) => ({
  workers: mode === 'plain' ? 0 : Number.parseInt(mode, 10),
  pinned: mode === 'plain' || mode.endsWith('@0'),
}));
const rateLimits = args['rate-limit'].split(',').map((value) => value === 'on');
const builds = [
  { name: 'this', cli: fileURLToPath(new URL('../dist/cli.js', import.meta.url)) },
  ...(args.before ? [{ name: 'before', cli: join(resolve(args.before), 'dist/cli.js') }] : []),
];
/** A rate no run reaches: the bucket is taken from on every request, and never refuses. */
const UNREACHED_RATE = '1000000000';

const log = (message: string) => process.stderr.write(`${message}\n`);
const body = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'The capital of France, please.' }],
});

interface Config {
  build: (typeof builds)[number];
  workers: number;
  pinned: boolean;
  rateLimit: boolean;
}
interface Run {
  rps: number;
  workerUs: number;
  /** Of `workerUs`, the time in the kernel (stime). */
  workerKernelUs: number;
  /** Of `workerUs`, the time of threads other than the main one. */
  workerHelpersUs: number;
  primaryUs: number;
  errors: number;
}

async function measure(config: Config, mockPort: number, dataDir: string, children: ChildProcess[]): Promise<Run> {
  const data = mkdtempSync(join(dataDir, 'serve-'));
  const node = process.execPath;
  const key = execFileSync(node, [config.build.cli, 'keys', 'create', '--data', data], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const port = await freePort();
  const argv = [node, config.build.cli, 'serve', '--port', String(port), '--data', data];
  if (config.rateLimit) argv.push('--rate-limit', UNREACHED_RATE);
  if (config.workers > 0) argv.push('--workers', String(config.workers));
  const [command, commandArgs] = config.pinned ? pinned(0, argv) : [argv[0]!, argv.slice(1)];
  const env = { ...process.env, ...mockProviderEnv(mockPort) };
  const child = spawn(command, commandArgs, { stdio: 'ignore', env });
  children.push(child);
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(url, { method: 'POST', headers, body }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`serve did not come up (${describe(config)})`);
    await new Promise((done) => setTimeout(done, 200));
  }
  await autocannon({ url, method: 'POST', headers, body, connections: 32, duration: 2 });
  const workers = config.workers === 0 ? [child.pid!] : childrenOf(child.pid!);
  const primary = config.workers === 0 ? [] : [child.pid!];
  /** The processes' CPU seconds: all of it, the kernel's part and the helper threads' part. */
  const sum = (pids: number[]) => {
    const total = { all: 0, kernel: 0, helpers: 0 };
    for (const { all, kernel, helpers } of pids.map(cpuSeconds)) {
      total.all += all;
      total.kernel += kernel;
      total.helpers += helpers;
    }
    return total;
  };
  const [workersBefore, primaryBefore] = [sum(workers), sum(primary)];
  const run = await autocannon({ url, method: 'POST', headers, body, connections: 32, duration: seconds });
  const [workersAfter, primaryAfter] = [sum(workers), sum(primary)];
  child.kill('SIGKILL');
  for (const pid of workers) if (pid !== child.pid) process.kill(pid, 'SIGKILL');
  rmSync(data, { recursive: true, force: true });
  const answered = run['2xx'];
  return {
    rps: answered / run.duration,
    workerUs: ((workersAfter.all - workersBefore.all) / answered) * 1e6,
    workerKernelUs: ((workersAfter.kernel - workersBefore.kernel) / answered) * 1e6,
    workerHelpersUs: ((workersAfter.helpers - workersBefore.helpers) / answered) * 1e6,
    primaryUs: ((primaryAfter.all - primaryBefore.all) / answered) * 1e6,
    errors: run.errors + run.non2xx + run.timeouts,
  };
}

function describe(config: Config): string {
  const mode = config.workers === 0 ? 'serve' : `serve --workers ${config.workers}${config.pinned ? ' (core 0)' : ''}`;
  return `${mode}${config.rateLimit ? ' --rate-limit' : ''}${builds.length > 1 ? ` [${config.build.name}]` : ''}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

async function main(): Promise<void> {
  pinSelfToLoadCore();
  const mock = await startMock();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-serve-cpu-'));
  const children: ChildProcess[] = [];
  const configs: Config[] = modes.flatMap((mode) =>
    rateLimits.flatMap((rateLimit) => builds.map((build) => ({ build, ...mode, rateLimit }))),
  );
  const runs = new Map<Config, Run[]>(configs.map((config) => [config, []]));
  try {
    for (let round = 0; round < rounds; round++)
      for (const config of round % 2 ? [...configs].reverse() : configs) {
        const run = await measure(config, mock.port, dataDir, children);
        runs.get(config)!.push(run);
        log(
          `round ${round + 1} ${describe(config)}: ${run.rps.toFixed(0)} rps, worker ${run.workerUs.toFixed(0)} µs ` +
            `(kernel ${run.workerKernelUs.toFixed(0)}, helper threads ${run.workerHelpersUs.toFixed(0)}), ` +
            `primary ${run.primaryUs.toFixed(0)} µs per request${run.errors ? `, ${run.errors} errors` : ''}`,
        );
      }
  } finally {
    for (const child of children) child.kill('SIGKILL');
    mock.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const all = (values: number[]) => `${median(values).toFixed(0)} (${values.map((v) => v.toFixed(0)).join(', ')})`;
  console.log(`CPU per request answered, µs: median (each round); ${seconds} s at 32 connections per run`);
  console.log(
    '| server | workers' +
      "' CPU | of which kernel | of which helper threads | primary CPU | total | c32 RPS | errors |",
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const config of configs) {
    const list = runs.get(config)!;
    const primary = config.workers === 0 ? '' : all(list.map((run) => run.primaryUs));
    console.log(
      `| ${describe(config)} | ${all(list.map((run) => run.workerUs))} | ` +
        `${all(list.map((run) => run.workerKernelUs))} | ${all(list.map((run) => run.workerHelpersUs))} | ` +
        `${primary} | ` +
        `${all(list.map((run) => run.workerUs + run.primaryUs))} | ${all(list.map((run) => run.rps))} | ` +
        `${list.reduce((total, run) => total + run.errors, 0)} |`,
    );
  }
}

await main();
