/**
 * Where serve's slowest calls are: one connection, sequential calls, first to the mock provider directly (the
 * machine's own tail), then through `switchyard serve`; percentiles of both after the first 3,000 calls (the JIT's
 * warm-up, in both processes), and which of serve's later calls were at or over its p99 (numbered from serve's first
 * call). Calls
 * slow at the same numbers run after run are the process's own periodic work (SQLite's WAL checkpoint every ~1,000
 * records, V8's collections); scattered ones are the machine. docs/performance.md, "Serve's slowest calls".
 *
 *   npm run build && node bench/serve-tail.ts [--calls 8000] [--serve-flag=--trace-gc]
 *
 * serve is pinned to core 0, this process and the mock to core 1 (as bench/server.ts). `--serve-flag` passes a flag
 * to serve's `node` (repeatable); `--trace` runs serve under `strace -f -T -tt -o /tmp/serve-tail.strace`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { SERVE_REQUEST_BODY } from './payloads.ts';
import { pinned, pinSelfToLoadCore } from './pinning.ts';
import { freePort } from './processes.ts';
import { answered, mockProviderEnv, startMock, untilAnswered } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '8000' },
    'serve-flag': { type: 'string', multiple: true, default: [] },
    trace: { type: 'boolean', default: false },
  },
});
const calls = Number(args.calls);
/**
 * The first calls warm the JIT up, in the mock as in serve (optimising compilers run beside them): left out of the
 * percentiles, but counted in the call numbers.
 */
const WARM_UP = 3000;
if (!(calls > WARM_UP)) throw new Error(`--calls must be more than the ${WARM_UP} warm-up calls`);
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli.js');
const body = SERVE_REQUEST_BODY;

pinSelfToLoadCore();
const mock = await startMock();
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-serve-tail-'));
let serve: ChildProcess | undefined;
process.on('exit', () => {
  serve?.kill('SIGKILL');
  mock.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--data', dataDir], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
}).trim();
const port = await freePort();
const strace = args.trace ? ['strace', '-f', '-T', '-tt', '-o', '/tmp/serve-tail.strace'] : [];
const [command, argv] = pinned(0, [
  ...strace,
  process.execPath,
  ...args['serve-flag'],
  cli,
  'serve',
  '--port',
  String(port),
  '--data',
  dataDir,
]);
serve = spawn(command, argv, {
  stdio: ['ignore', 'inherit', 'ignore'],
  env: { ...process.env, ...mockProviderEnv(mock.port) },
});

/** `calls` sequential calls on one connection; each one's milliseconds. */
async function sequential(url: string, headers: Record<string, string>): Promise<number[]> {
  const client = new Client(url, { pipelining: 1 });
  const times: number[] = [];
  for (let index = 0; index < calls; index++) {
    const start = performance.now();
    const response = await client.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    times.push(performance.now() - start);
  }
  await client.close();
  return times;
}

const sortedAfterWarmUp = (times: number[]) => times.slice(WARM_UP).sort((a, b) => a - b);
const percentile = (sorted: number[], p: number) => sorted[Math.ceil((p / 100) * sorted.length) - 1]!;
const summary = (times: number[]) => {
  const sorted = sortedAfterWarmUp(times);
  return [50, 90, 99, 99.9].map((p) => `p${p} ${percentile(sorted, p).toFixed(3)}`).join(', ');
};

const json = { 'content-type': 'application/json' };
const serveHeaders = { ...json, authorization: `Bearer ${key}` };
// The direct calls only once serve is up and idle: its start (compiling, migrating) would be in their tail.
await untilAnswered(() => answered(`http://127.0.0.1:${port}/v1/chat/completions`, serveHeaders, body), 300);
const direct = await sequential(`http://127.0.0.1:${mock.port}`, json);
const served = await sequential(`http://127.0.0.1:${port}`, serveHeaders);
console.log(`direct mock, ms: ${summary(direct)}`);
console.log(`serve, ms:       ${summary(served)}`);
const p99 = percentile(sortedAfterWarmUp(served), 99);
const slow = served.flatMap((ms, index) => (index >= WARM_UP && ms >= p99 ? [`${index + 1}: ${ms.toFixed(1)}`] : []));
console.log(`serve's calls at or over its p99 (call number: ms): ${slow.join(', ')}`);
process.exit(0);
