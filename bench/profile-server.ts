/**
 * Where the CPU of `switchyard serve` goes under load: the built CLI (or, for comparison, bench/sdk-proxy.ts or
 * bench/essential-gateway.ts, serve's own work for a plain call written straight) runs under `node --cpu-prof`
 * pinned to core 0, autocannon drives it at 32 connections from core 1 against bench/mock-server.ts, and the samples
 * are charged per request: by area and by frame, self time, with native frames (syscalls, SQLite, JSON) charged to
 * the JS function that called them.
 *
 *   SWITCHYARD_READABLE_BUILD=1 npm run build && node bench/profile-server.ts
 *   [--target serve|sdk-proxy|essential] [--seconds 10] [--connections 32] [--top 25] [--interval 200]
 *   [--save <file.cpuprofile>]
 *   (the readable build: frames name lines; the default ESM build is minified). `--save` keeps the profile: open it
 *   in DevTools (Performance → Load profile), or read a frame's `positionTicks` for its samples line by line.
 *
 * Per-request figures scale the sample shares to the CPU the process used during the measured run (from
 * /proc/<pid>/stat) divided by its requests. The profile also holds start-up and a 2 s warm-up (a few % of the
 * samples); the profiler itself slows the server by about a fifth. Single frames are noisy: confirm with an A/B.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { allocatorEnvironment, SERVE_HEAP_FLAGS } from '../src/cli/serve-process.ts';
import { areaOf, type CpuProfile, frameKey } from './cpu-profile.ts';
import { SERVE_REQUEST_BODY } from './payloads.ts';
import { hasTaskset, pinSelfToLoadCore } from './pinning.ts';
import { cpuSeconds } from './processes.ts';
import { answered, spawnServer, startMock, untilAnswered } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    target: { type: 'string', default: 'serve' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    top: { type: 'string', default: '25' },
    interval: { type: 'string', default: '200' },
    save: { type: 'string' },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const node = process.execPath;
pinSelfToLoadCore();
if (args.target === 'serve' && !existsSync(join(root, 'dist/cli.js')))
  throw new Error('dist/cli.js is missing: npm run build');

const mock = await startMock();
const work = mkdtempSync(join(tmpdir(), 'switchyard-prof-server-'));
const port = 20_000 + Math.floor(Math.random() * 10_000);
const profiler = ['--cpu-prof', '--cpu-prof-dir', join(work, 'prof'), '--cpu-prof-interval', args.interval!];
let headers: Record<string, string> = { 'content-type': 'application/json' };
/** The one key the essential gateway accepts (its GATEWAY_KEY). */
const ESSENTIAL_KEY = 'sk-essential-bench';
/**
 * serve and the essential gateway run as serve runs itself: its heap bounds and its allocator, given up front (serve
 * then has no reason to restart; the profiler's flags would survive it anyway).
 */
const asServe = [node, ...SERVE_HEAP_FLAGS, ...profiler];
const allocator = args.target === 'sdk-proxy' ? {} : (allocatorEnvironment(process.env) ?? {});
let argv: string[];
if (args.target === 'serve') {
  const key = execFileSync(node, ['dist/cli.js', 'keys', 'create', '--data', join(work, 'data')], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  headers = { ...headers, authorization: `Bearer ${key}` };
  argv = [...asServe, 'dist/cli.js', 'serve', '--port', String(port), '--data', join(work, 'data')];
} else if (args.target === 'essential') {
  headers = { ...headers, authorization: `Bearer ${ESSENTIAL_KEY}` };
  argv = [...asServe, 'bench/essential-gateway.ts', String(port), join(work, 'data')];
} else {
  argv = [node, ...profiler, 'bench/sdk-proxy.ts', String(port)];
}
const child = spawnServer(argv, mock.port, { GATEWAY_KEY: ESSENTIAL_KEY, ...allocator });
const exited = new Promise((resolve) => child.once('exit', resolve));
const url = `http://127.0.0.1:${port}/v1/chat/completions`;
const body = SERVE_REQUEST_BODY;
await untilAnswered(() => answered(url, headers, body), 150);
const connections = Number(args.connections);
await autocannon({ url, method: 'POST', headers, body, connections, duration: 2 });
const before = cpuSeconds(child.pid!).all;
const run = await autocannon({ url, method: 'POST', headers, body, connections, duration: Number(args.seconds) });
const cpuUsPerRequest = ((cpuSeconds(child.pid!).all - before) * 1e6) / run['2xx'];
child.kill('SIGINT');
await exited;
mock.stop();

const profileDir = join(work, 'prof');
const profileText = readFileSync(join(profileDir, readdirSync(profileDir)[0]!), 'utf8');
if (args.save) writeFileSync(args.save, profileText);
const profile = JSON.parse(profileText) as CpuProfile;
rmSync(work, { recursive: true, force: true });

const byId = new Map(profile.nodes.map((entry) => [entry.id, entry]));
const parent = new Map<number, number>();
for (const entry of profile.nodes) for (const child of entry.children ?? []) parent.set(child, entry.id);
const frames = new Map<string, number>();
const areas = new Map<string, number>();
let busy = 0;
for (const id of profile.samples) {
  let frame = byId.get(id)!.callFrame;
  if (frame.functionName === '(idle)') continue;
  busy += 1;
  let key = frameKey(frame);
  // A native leaf (a syscall, SQLite, JSON) is charged to the JS function that called it.
  if (!frame.url && !frame.functionName.startsWith('(')) {
    for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
      const caller = byId.get(up)!.callFrame;
      if (!caller.url) continue;
      key = `${frameKey(caller)} [${frame.functionName || 'native'}]`;
      frame = caller;
      break;
    }
  }
  frames.set(key, (frames.get(key) ?? 0) + 1);
  const area = areaOf(frame.url, frame.functionName);
  areas.set(area, (areas.get(area) ?? 0) + 1);
}
const perRequest = cpuUsPerRequest / busy;
const table = (title: string, map: Map<string, number>, count: number) => {
  console.log(`\n| µs/request | share | ${title} |\n|---:|---:|---|`);
  for (const [name, samples] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`| ${(samples * perRequest).toFixed(1)} | ${((100 * samples) / busy).toFixed(1)} % | ${name} |`);
  }
};
console.log(
  `${args.target}: ${(run['2xx'] / run.duration).toFixed(0)} RPS at ${connections} connection(s) under the profiler, ` +
    `${cpuUsPerRequest.toFixed(0)} µs CPU per request${hasTaskset ? '' : ' (taskset absent: nothing pinned)'}`,
);
table('area (self time)', areas, Number(args.top));
table('frame (self time; [native] charged to its caller)', frames, Number(args.top));
