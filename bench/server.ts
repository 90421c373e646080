/**
 * `switchyard serve` under load: one command, one table.
 *
 *   node bench/server.ts [--duration 10] [--long-seconds 240] [--long-requests 1000000] [--portkey /tmp/portkey]
 *       [--before <tree>] [--workers 1,2]
 *
 * - bench/mock-server.ts is the provider. This process (autocannon, the undici clients) and the mock are pinned to
 *   core 1; the server under test to core 0 (`taskset`).
 * - `switchyard serve` is the built CLI (dist/cli.js) in its own process with OPENAI_BASE_URL at the mock: real HTTP
 *   to a provider, call records into SQLite, request logs to stderr (sent to /dev/null).
 * - The peer is @portkey-ai/gateway when installed under --portkey (outside the project:
 *   `mkdir /tmp/portkey && cd /tmp/portkey && npm install @portkey-ai/gateway`); skipped otherwise.
 * - Three yardsticks on the same core: bench/undici-proxy.ts passes bodies through node:http → undici (the ceiling of
 *   any Node gateway that calls upstream), bench/sdk-proxy.ts puts the official openai SDK behind a bare node:http
 *   server (no auth, records, validation; serve's transport): what serve costs over it is what Switchyard adds;
 *   bench/essential-gateway.ts does serve's own work for a plain call (the key's hash, both JSON passes, the record
 *   journaled and stored in SQLite) written straight: the floor a redesign of serve's request path could reach. The
 *   two proxies run on Node's default heap settings, so their RSS is not serve's to compare; the essential gateway
 *   runs with serve's heap bounds, from JavaScript as serve does, so its CPU and RSS are.
 * - The "before" column: `--before <tree>`, another checkout built with `npm run build` (its dist/cli.js, on the wire
 *   transport: an A/B of two commits in one run); without it, this build on the SDK transport (issue 27's before).
 * - Measured in one run: RPS at 32 connections (autocannon), latency at 1 connection (undici, rounds alternated
 *   between targets), time to the first body byte of a stream (sequential, alternated), the server's RSS idle, under
 *   load and over a long run (sampled every 10 s), and its CPU a request at 32 connections (/proc, all threads) with
 *   the part of its helper threads (V8's garbage collection and compilation). Ratios are within this run.
 * - `--workers <list>`: `serve --workers n` for each n, a row each (RPS at c32, each worker's RSS):
 *   bench/server-workers.ts says how they are pinned and which n this machine cannot measure.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Client } from 'undici';
import { allocatorEnvironment, SERVE_HEAP_FLAGS } from '../src/cli/serve-process.ts';
import { hasTaskset, pinned, pinSelfToLoadCore } from './pinning.ts';
import { cpuSeconds, freePort, rssMb } from './processes.ts';
import { benchWorkers, parseWorkerList } from './server-workers.ts';
import { spawnServer, startMock } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    'long-seconds': { type: 'string', default: '240' },
    'long-requests': { type: 'string', default: '1000000' },
    'stream-requests': { type: 'string', default: '200' },
    portkey: { type: 'string', default: '/tmp/portkey' },
    before: { type: 'string' },
    workers: { type: 'string', default: '1,2' },
  },
});
const duration = Number(args.duration);
const longSeconds = Number(args['long-seconds']);
const longRequests = Number(args['long-requests']);
const streamRequests = Number(args['stream-requests']);
const workerCounts = parseWorkerList(args.workers);

const root = fileURLToPath(new URL('..', import.meta.url));
const node = process.execPath;
const log = (message: string) => process.stderr.write(`${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// This process (autocannon, undici clients) and the mock it forks: core 1. Servers under test: core 0.
pinSelfToLoadCore();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server process whose RSS is read; none for the direct mock. */
  pid?: number;
}

const messages = [
  { role: 'system', content: 'You answer with JSON describing a city.' },
  { role: 'user', content: 'The capital of France, please.' },
];
const body = JSON.stringify({ model: 'gpt-4o-mini', messages });
const streamBody = JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true });

async function waitUntilUp(target: Target, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline && !exited) {
    try {
      const response = await fetch(`${target.url}/v1/chat/completions`, {
        method: 'POST',
        headers: target.headers,
        body,
      });
      const text = await response.text();
      if (response.ok) return;
      if (response.status !== 404 && response.status < 500)
        throw new Error(`${target.name}: ${response.status} ${text.slice(0, 300)}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(target.name)) throw error;
    }
    await sleep(200);
  }
  throw new Error(`${target.name} did not come up`);
}

async function rps(
  target: Target,
  connections: number,
  seconds: number,
): Promise<{
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMaxMb: number;
  /** CPU seconds the server spent, and its helper threads' part of them (NaN for the direct mock). */
  cpu: { all: number; helpers: number };
  answered: number;
}> {
  let rssMax = target.pid ? rssMb(target.pid) : Number.NaN;
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : undefined;
  const timer = target.pid ? setInterval(() => (rssMax = Math.max(rssMax, rssMb(target.pid!))), 500) : undefined;
  const result = await autocannon({
    url: `${target.url}/v1/chat/completions`,
    method: 'POST',
    headers: target.headers,
    body,
    connections,
    duration: seconds,
  });
  if (timer) clearInterval(timer);
  const cpuAfter = target.pid ? cpuSeconds(target.pid) : undefined;
  return {
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    rssMaxMb: rssMax,
    cpu:
      cpuBefore && cpuAfter
        ? { all: cpuAfter.all - cpuBefore.all, helpers: cpuAfter.helpers - cpuBefore.helpers }
        : { all: Number.NaN, helpers: Number.NaN },
    answered: result['2xx'],
  };
}

/** One connection, sequential requests; `rounds` slices of `seconds / rounds` per target, alternated. */
async function latency(targets: Target[], seconds: number, rounds = 5): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  const clients = new Map(targets.map((target) => [target.name, new Client(target.url, { pipelining: 1 })]));
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 ? [...targets].reverse() : targets) {
      const client = clients.get(target.name)!;
      const list = samples.get(target.name)!;
      const end = performance.now() + (seconds * 1000) / rounds;
      let warm = 20;
      while (performance.now() < end) {
        const start = performance.now();
        const response = await client.request({
          path: '/v1/chat/completions',
          method: 'POST',
          headers: target.headers,
          body,
        });
        await response.body.arrayBuffer();
        if (response.statusCode !== 200) throw new Error(`${target.name}: ${response.statusCode}`);
        if (warm > 0) warm--;
        else list.push(performance.now() - start);
      }
    }
  }
  await Promise.all([...clients.values()].map((client) => client.close()));
  return samples;
}

/** Time to the first body byte of `stream: true`, sequential, targets alternated per request. */
async function firstByte(all: Target[], count: number, failures: Map<string, string>): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(all.map((target) => [target.name, []]));
  const clients = new Map(all.map((target) => [target.name, new Client(target.url)]));
  let targets = all;
  for (let index = -20; index < count; index++) {
    for (const target of index % 2 ? [...targets].reverse() : targets) {
      if (failures.has(target.name)) continue;
      const start = performance.now();
      const response = await clients
        .get(target.name)!
        .request({ path: '/v1/chat/completions', method: 'POST', headers: target.headers, body: streamBody });
      let first = Number.NaN;
      let text = '';
      for await (const part of response.body) {
        if (Number.isNaN(first)) first = performance.now() - start;
        text += (part as Buffer).toString();
      }
      if (response.statusCode !== 200 || !text.includes('[DONE]')) {
        // The peer's failure is reported, not fatal; ours is fatal.
        if (target.name !== 'Portkey gateway')
          throw new Error(`${target.name}: stream ${response.statusCode} ${text.slice(0, 200)}`);
        failures.set(target.name, `${response.statusCode} ${text.slice(0, 120)}`);
        targets = targets.filter((other) => other !== target);
        continue;
      }
      if (index >= 0) samples.get(target.name)!.push(first);
    }
  }
  await Promise.all([...clients.values()].map((client) => client.close()));
  return samples;
}

// ---------------------------------------------------------------------------------------------------------------

const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
const stopAll = () => {
  for (const child of children) child.kill('SIGKILL');
};
process.on('exit', () => {
  stopAll();
  rmSync(dataDir, { recursive: true, force: true });
});

if (!existsSync(join(root, 'dist/cli.js'))) {
  log('dist/cli.js is missing: npm run build');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
log(
  `switchyard serve bench: node ${process.version}; taskset ` +
    `${hasTaskset ? 'yes: servers on core 0, mock + load on core 1' : 'absent: nothing pinned'}`,
);

const mock = await startMock();
const direct: Target = {
  name: 'direct mock',
  url: `http://127.0.0.1:${mock.port}`,
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
};

/**
 * `switchyard serve` on its own data directory and key. `transport` is the provider transport: `wire` (the default
 * since issue 27: the "after") or `sdk` (the official SDK, as before it: the "before" column, same machine, same run).
 */
async function startServe(
  name: string,
  transport: 'wire' | 'sdk',
  cli = join(root, 'dist/cli.js'),
): Promise<Target & { idleColdMb: number }> {
  const data = join(dataDir, `${transport}-${children.length}`);
  const key = execFileSync(node, [cli, 'keys', 'create', '--data', data], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const port = await freePort();
  const child = spawnServer([node, cli, 'serve', '--port', String(port), '--data', data], mock.port, {
    SWITCHYARD_TRANSPORT: transport,
  });
  children.push(child);
  const target = {
    name,
    url: `http://127.0.0.1:${port}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    pid: child.pid!,
    idleColdMb: Number.NaN,
  };
  await sleep(300);
  target.idleColdMb = rssMb(target.pid);
  await waitUntilUp(target, child);
  return target;
}
const serve = await startServe('switchyard serve', 'wire');
const serveIdleColdMb = serve.idleColdMb;
const serveBefore = args.before
  ? await startServe('switchyard serve, before', 'wire', resolve(args.before, 'dist/cli.js'))
  : await startServe('switchyard serve, SDK transport (before)', 'sdk');

// Yardsticks on the same core: a pass-through undici proxy (the ceiling of any Node gateway that calls upstream),
// the official SDK behind a bare node:http server (the ceiling of one built on the SDK, on serve's transport), and
// serve's own work written straight (the floor a redesign of serve's request path could reach).
/**
 * `key`: the bearer key the yardstick wants (GATEWAY_KEY in its environment), sent by every request; a yardstick with
 * a key keeps records, in a directory of the bench's data directory. `flags`: node's, before the script. `env`: more
 * of its environment.
 */
async function startProxy(
  name: string,
  script: string,
  { key, flags = [], env = {} }: { key?: string; flags?: string[]; env?: Record<string, string> } = {},
): Promise<Target> {
  const port = await freePort();
  const records = key ? [join(dataDir, name.replaceAll(' ', '-'))] : [];
  const child = spawnServer([node, ...flags, script, String(port), ...records], mock.port, {
    ...(key ? { GATEWAY_KEY: key } : {}),
    ...env,
  });
  children.push(child);
  const target: Target = {
    name,
    url: `http://127.0.0.1:${port}`,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    pid: child.pid!,
  };
  await waitUntilUp(target, child);
  return target;
}
const undiciProxy = await startProxy('bare undici proxy', 'bench/undici-proxy.ts');
const sdkProxy = await startProxy('bare SDK proxy', 'bench/sdk-proxy.ts');
/**
 * The essential gateway run as serve runs: from JavaScript (Node's type stripping keeps ~17 MB more resident), with
 * serve's heap bounds and on serve's allocator (jemalloc where the system has it), so that its CPU and RSS compare
 * with serve's. The file goes where `undici` resolves from.
 */
function essentialGatewayScript(): string {
  const dir = join(root, 'node_modules/.cache/switchyard-bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'essential-gateway.mjs');
  writeFileSync(file, stripTypeScriptTypes(readFileSync(join(root, 'bench/essential-gateway.ts'), 'utf8')));
  return file;
}
const essential = await startProxy('essential gateway', essentialGatewayScript(), {
  key: 'sy-essential-bench-key',
  flags: SERVE_HEAP_FLAGS,
  env: allocatorEnvironment(process.env) ?? {},
});

let portkey: Target | undefined;
let portkeyNote = '';
const portkeyEntry = join(args.portkey, 'node_modules/@portkey-ai/gateway/build/start-server.js');
if (existsSync(portkeyEntry)) {
  const port = await freePort();
  const [cmd, argv] = pinned(0, [node, portkeyEntry, `--port=${port}`, '--headless']);
  const child = spawn(cmd, argv, {
    cwd: args.portkey,
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  children.push(child);
  portkey = {
    name: 'Portkey gateway',
    url: `http://127.0.0.1:${port}`,
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-bench',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `http://127.0.0.1:${mock.port}/v1`,
    },
    pid: child.pid!,
  };
  try {
    await waitUntilUp(portkey, child);
  } catch (error) {
    portkeyNote = `Portkey did not answer: ${(error as Error).message}`;
    child.kill('SIGKILL');
    portkey = undefined;
  }
} else {
  portkeyNote = `Portkey not installed at ${args.portkey}`;
}
if (portkeyNote) log(portkeyNote);

const targets = [direct, undiciProxy, sdkProxy, essential, serveBefore, serve, ...(portkey ? [portkey] : [])];
log('warm-up…');
for (const target of targets) await rps(target, 32, 2);
const serveIdleMb = rssMb(serve.pid!);

// Rounds alternate the targets' order: on a shared machine a neighbour's load then falls on every target alike,
// and the ratios within this run hold where the absolute figures do not.
const rounds = 4;
log(`RPS at 32 connections, ${duration} s each, in ${rounds} alternated rounds…`);
const load = new Map<string, Awaited<ReturnType<typeof rps>>>();
for (let round = 0; round < rounds; round++) {
  for (const target of round % 2 ? [...targets].reverse() : targets) {
    const run = await rps(target, 32, duration / rounds);
    const sum = load.get(target.name);
    if (!sum) load.set(target.name, { ...run, rps: run.rps / rounds });
    else {
      sum.cpu.all += run.cpu.all;
      sum.cpu.helpers += run.cpu.helpers;
      sum.answered += run.answered;
      sum.rps += run.rps / rounds;
      sum.p50 = Math.max(sum.p50, run.p50);
      sum.p99 = Math.max(sum.p99, run.p99);
      sum.errors += run.errors;
      sum.rssMaxMb = Math.max(sum.rssMaxMb, run.rssMaxMb);
    }
  }
}

log(`latency at 1 connection, ${duration} s each (5 alternated rounds)…`);
const lat = await latency(targets, duration);

log(`stream first byte, ${streamRequests} sequential requests each…`);
const streamFailures = new Map<string, string>();
// The essential gateway answers plain calls only: it has no stream to time.
const ttfb = await firstByte(
  targets.filter((target) => target !== essential),
  streamRequests,
  streamFailures,
);
for (const [name, why] of streamFailures) log(`${name}: streaming failed (${why})`);

const serveRps = load.get(serve.name)!.rps;
const longAmount = Math.min(longRequests, Math.floor(serveRps * longSeconds));
log(`long run: ${longAmount} requests at 32 connections (RSS every 10 s)…`);
const rssSeries: number[] = [rssMb(serve.pid!)];
const sampler = setInterval(() => rssSeries.push(rssMb(serve.pid!)), 10_000);
const longStart = performance.now();
const long = await autocannon({
  url: `${serve.url}/v1/chat/completions`,
  method: 'POST',
  headers: serve.headers,
  body,
  connections: 32,
  amount: longAmount,
  timeout: 30,
});
const longSecondsTaken = (performance.now() - longStart) / 1000;
clearInterval(sampler);
rssSeries.push(rssMb(serve.pid!));
await sleep(2000);
const rssAfterLong = rssMb(serve.pid!);
for (const target of targets) if (target.pid) process.kill(target.pid, 'SIGKILL');
const workersRows = await benchWorkers(
  {
    cli: join(root, 'dist/cli.js'),
    dataDir,
    mockPort: mock.port,
    port: freePort,
    body,
    seconds: duration,
    log,
    children,
  },
  workerCounts,
);
mock.stop();
stopAll();

// ---------------------------------------------------------------------------------------------------------------

const f = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '');
const signed = (value: number, digits = 2) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(digits)}` : '';
const stat = (name: string) => {
  const l = lat.get(name)!;
  const t = ttfb.get(name) ?? [];
  return {
    p50: percentile(l, 50),
    p99: percentile(l, 99),
    n: l.length,
    ttfb50: percentile(t, 50),
    ttfb99: percentile(t, 99),
  };
};
const base = stat(direct.name);
const rows: string[][] = [];
for (const target of targets) {
  const s = stat(target.name);
  const l = load.get(target.name)!;
  const isBase = target === direct;
  rows.push([
    target.name,
    f(l.rps, 0),
    isBase ? 'reference' : ratios(l.rps, target),
    String(l.errors),
    f(s.p50, 3),
    f(s.p99, 3),
    isBase ? '' : `${signed(s.p50 - base.p50, 3)} / ${signed(s.p99 - base.p99, 3)}`,
    f(s.ttfb50, 3),
    isBase ? '' : signed(s.ttfb50 - base.ttfb50, 3),
    target.pid ? f(l.rssMaxMb, 0) : '',
    target.pid ? `${f((l.cpu.all / l.answered) * 1e6, 0)} (${f((l.cpu.helpers / l.answered) * 1e6, 0)})` : '',
  ]);
}
const header = [
  'target',
  'c32 RPS',
  'c32 RPS ratio',
  'c32 errors',
  'c1 p50 ms',
  'c1 p99 ms',
  'c1 added p50 / p99 ms',
  'stream 1st byte p50 ms',
  'added 1st byte ms',
  'RSS max under c32 MB',
  'c32 CPU µs a request (of it, helper threads)',
];
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map((_, index) => (index === 0 ? '---' : '---:')).join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);

const sv = stat(serve.name);
const px = stat(sdkProxy.name);
const rssUnderLoad = Math.max(load.get(serve.name)!.rssMaxMb, ...rssSeries);
const firstFull = rssSeries[Math.min(3, rssSeries.length - 1)]!; // after ~30 s of the long run
const lastFull = rssSeries[rssSeries.length - 1]!;
console.log('');
console.log(
  `switchyard serve RSS: ${f(serveIdleColdMb, 0)} MB at start, ${f(serveIdleMb, 0)} MB idle after warm-up, ` +
    `${f(rssUnderLoad, 0)} MB max under load, ${f(rssAfterLong, 0)} MB idle after the long run`,
);
console.log(
  `long run: ${long['2xx']} ok of ${longAmount} (${long.errors + long.non2xx + long.timeouts} errors) in ` +
    `${f(longSecondsTaken, 0)} s = ${f(long['2xx'] / longSecondsTaken, 0)} RPS; RSS every 10 s (MB): ` +
    `${rssSeries.map((value) => f(value, 0)).join(' ')}`,
);
console.log(`RSS drift from 30 s in to the end: ${signed(lastFull - firstFull, 1)} MB`);
console.log('');
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
if (portkey) {
  const ratio = serveRps / load.get(portkey.name)!.rps;
  const portkeyRps = load.get(portkey.name)!.rps;
  console.log(
    `target serve ≥ 10× Portkey RPS at c32: ${f(ratio, 1)}× → ${verdict(ratio >= 10)} (ceilings on this core: the ` +
      `bare undici proxy ${f(load.get(undiciProxy.name)!.rps / portkeyRps, 1)}×, the bare SDK proxy ` +
      `${f(load.get(sdkProxy.name)!.rps / portkeyRps, 1)}×)`,
  );
} else {
  console.log(`target serve ≥ 10× Portkey RPS at c32: not measured (${portkeyNote})`);
}
for (const [name, why] of streamFailures) console.log(`${name}: stream: true answered ${why} (no first-byte figure)`);
console.log(
  `target +≤ 0.3 ms p50 at c1: ${signed(sv.p50 - base.p50, 3)} ms → ${verdict(sv.p50 - base.p50 <= 0.3)} (the bare ` +
    `SDK proxy alone: ${signed(px.p50 - base.p50, 3)} ms; serve over it: ${signed(sv.p50 - px.p50, 3)} ms)`,
);
console.log(`target +≤ 1 ms p99 at c1: ${signed(sv.p99 - base.p99, 3)} ms → ${verdict(sv.p99 - base.p99 <= 1)}`);
console.log(
  `target +≤ 1 ms stream first byte (p50): ${signed(sv.ttfb50 - base.ttfb50, 3)} ms → ` +
    `${verdict(sv.ttfb50 - base.ttfb50 <= 1)} (the bare SDK proxy alone: ${signed(px.ttfb50 - base.ttfb50, 3)} ms)`,
);
console.log(`target RSS ≤ 120 MB under load: ${f(rssUnderLoad, 0)} MB → ${verdict(rssUnderLoad <= 120)}`);
console.log(
  `target RSS flat after ${longAmount === longRequests ? '1M' : `${longAmount} (not 1M: ${longSeconds} s cap)`} ` +
    `requests: drift ${signed(lastFull - firstFull, 1)} MB → ${verdict(lastFull - firstFull <= 10)} ` +
    '(flat = within 10 MB)',
);

// Issue 27's table: serve on the SDK transport (before) and on the wire transport (after), in this one run.
const sb = stat(serveBefore.name);
const undiciRps = load.get(undiciProxy.name)!.rps;
const added = (x: ReturnType<typeof stat>) => `${signed(x.p50 - base.p50, 3)} / ${signed(x.p99 - base.p99, 3)}`;
console.log('');
const beforeName = args.before ? `serve at ${args.before}` : 'serve, SDK transport';
console.log(`| measure (this run) | before: ${beforeName} | after: serve, this build | target |`);
console.log('|---|---:|---:|---|');
const ratioRow = (name: string) => `${f(load.get(name)!.rps / undiciRps)}×`;
console.log(
  `| RPS at c32 vs the bare undici proxy | ${ratioRow(serveBefore.name)} | ${ratioRow(serve.name)} | ≥ 0.5× |`,
);
console.log(`| added latency at c1, p50 / p99 ms | ${added(sb)} | ${added(sv)} | ≤ +0.3 / ≤ +1 |`);
console.log(
  `| added stream first byte, p50 ms | ${signed(sb.ttfb50 - base.ttfb50, 3)} | ` +
    `${signed(sv.ttfb50 - base.ttfb50, 3)} | ≤ +1 |`,
);
console.log(
  `| RSS max under c32, MB | ${f(load.get(serveBefore.name)!.rssMaxMb, 0)} | ${f(rssUnderLoad, 0)} | ≤ 120, flat |`,
);
console.log('');
for (const line of workersRows) console.log(line);
process.exit(0);

/** How a target's RPS compares with the direct mock, Portkey and (for serve) the bare SDK proxy. */
function ratios(rps: number, target: { name: string }): string {
  const versus = (name: string, digits?: number) => f(rps / load.get(name)!.rps, digits);
  let text = `${versus(direct.name)}× direct`;
  if (portkey && target !== serve && target !== portkey) text += `, ${versus(portkey.name, 1)}× Portkey`;
  const isServe = target === serve || target === serveBefore;
  if (isServe || target === essential) text += `, ${versus(undiciProxy.name)}× bare undici proxy`;
  if (isServe) text += `, ${versus(sdkProxy.name)}× bare SDK proxy, ${versus(essential.name)}× essential gateway`;
  if (portkey && isServe) text += `, ${versus(portkey.name, 1)}× Portkey`;
  return text;
}
