/**
 * What `switchyard serve` allocates per request, and where: V8's sampling heap profiler inside serve (preloaded from
 * bench/allocation-sampler.ts, counting the objects collections freed too), `--requests` calls of the benchmarks'
 * request at `--connections`, bytes per request by allocating frame (self, and with what it calls). Each byte
 * allocated is paid for again by the young-generation collection that frees or copies it: at one connection a
 * scavenge every ~6 MB of garbage is what serve's p99 is made of (docs/performance.md).
 *
 *   node bench/serve-allocations.ts [--requests 5000] [--connections 1] [--top 25] [--before <tree>] [--save <file>]
 *       [--promoted]
 *
 * Build first (`npm run build`); `--before` measures another checkout's dist/cli.js the same way, after this one (the
 * counts are of bytes, not time: they do not drift with the machine's load). `--save` keeps this build's profile (a
 * `.heapprofile` Chrome's DevTools open). `--promoted` leaves out the bytes young-generation collections freed: what
 * remains is mostly what was promoted (the slow collections' work), by allocating frame, plus (probably) young garbage
 * that a full collection freed. Serve on core 0, the rest on core 1.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { SERVE_REQUEST_BODY } from './payloads.ts';
import { pinned, pinSelfToLoadCore } from './pinning.ts';
import { mockProviderEnv, startMock, untilAnswered } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '1' },
    top: { type: 'string', default: '25' },
    before: { type: 'string' },
    save: { type: 'string' },
    promoted: { type: 'boolean', default: false },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const body = SERVE_REQUEST_BODY;

interface SampledNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: SampledNode[];
}

pinSelfToLoadCore();
const mock = await startMock();

/** Runs serve from `cli` under the sampler; resolves to its allocation profile over `--requests` requests. */
async function sample(cli: string, save?: string): Promise<SampledNode> {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: npm run build`);
  const work = mkdtempSync(join(tmpdir(), 'switchyard-allocations-'));
  const data = join(work, 'data');
  const out = join(work, 'allocations.json');
  const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--data', data], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const sampler = join(root, 'bench/allocation-sampler.ts');
  const [command, argv] = pinned(0, [process.execPath, '--import', sampler, cli, 'serve', '--port', `${port}`]);
  const child = spawn(command, [...argv, '--data', data], {
    stdio: 'ignore',
    env: {
      ...process.env,
      SWITCHYARD_ALLOCATIONS_OUT: out,
      ...(args.promoted ? { SWITCHYARD_ALLOCATIONS_PROMOTED: '1' } : {}),
      ...mockProviderEnv(mock.port),
    },
  });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: Number(args.connections) });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const call = async () => {
    const response = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`serve answered ${response.statusCode}`);
  };
  const calls = async (count: number) => {
    let left = count;
    const lane = async () => {
      while (left-- > 0) await call();
    };
    await Promise.all(Array.from({ length: Number(args.connections) }, lane));
  };
  try {
    await untilAnswered(call);
    // Warm: the JIT settles and the caches fill before the sampled requests.
    await calls(2000);
    child.kill('SIGUSR2');
    await sleep(200);
    await calls(Number(args.requests));
    child.kill('SIGUSR2');
    while (!existsSync(out)) await sleep(50);
    const profile = JSON.parse(readFileSync(out, 'utf8')) as { head: SampledNode };
    if (save) copyFileSync(out, save);
    return profile.head;
  } finally {
    // Whatever failed, no serve is left running to skew the next measurement.
    child.kill('SIGINT');
    await pool.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const frame = ({ functionName, url, lineNumber }: SampledNode['callFrame']) =>
  `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^file:\/\//, '')}` +
  `${url ? `:${lineNumber + 1}` : ''}`;

/** Bytes per request by frame: allocated in it (self), and in it or anything it called (inclusive). */
function tally(head: SampledNode) {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: SampledNode, above: ReadonlySet<string>) => {
    const name = frame(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    const path = new Set(above).add(name);
    for (const each of path) inclusive.set(each, (inclusive.get(each) ?? 0) + node.selfSize);
    for (const child of node.children ?? []) walk(child, path);
  };
  walk(head, new Set());
  return { total, self, inclusive };
}

const requests = Number(args.requests);
const table = (title: string, map: Map<string, number>) => {
  console.log(`\n| bytes/request | ${title} |\n|---:|---|`);
  const rows = [...map].filter(([name]) => !name.startsWith('(root)')).sort((a, b) => b[1] - a[1]);
  for (const [name, bytes] of rows.slice(0, Number(args.top)))
    console.log(`| ${Math.round(bytes / requests)} | ${name} |`);
};
const after = tally(await sample(resolve(root, 'dist/cli.js'), args.save));
const before = args.before ? tally(await sample(resolve(args.before, 'dist/cli.js'))) : undefined;
mock.stop();
const counted = args.promoted ? 'promoted' : 'allocated';
console.log(
  `switchyard serve: ${Math.round(after.total / requests)} bytes ${counted} per request ` +
    `(${requests} requests at ${args.connections} connection(s), sampled every 256 bytes)` +
    (before ? `; before (${args.before}): ${Math.round(before.total / requests)}` : ''),
);
table('frame, self', after.self);
table('frame, with what it calls', after.inclusive);
