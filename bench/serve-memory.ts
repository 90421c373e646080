/**
 * Where `switchyard serve`'s memory goes under load: serve (pinned to core 0) with `SWITCHYARD_DEBUG_MEMORY=5`,
 * 32 connections for `--seconds`, its memory lines (RSS, V8 heap per space, external) printed as a table.
 *
 *   node bench/serve-memory.ts [--seconds 60] [--cli dist/cli.js] [--node-options "..."]
 *
 * Build first (`npm run build`). The mock and this process (autocannon) run on core 1.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SERVE_REQUEST_BODY } from './payloads.ts';
import { pinned, pinSelfToLoadCore } from './pinning.ts';
import { cpuSeconds } from './processes.ts';
import { answered, mockProviderEnv, startMock, untilAnswered } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    cli: { type: 'string', default: 'dist/cli.js' },
    'node-options': { type: 'string', default: '' },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = resolve(root, args.cli);
pinSelfToLoadCore();
const data = mkdtempSync(join(tmpdir(), 'switchyard-memory-'));
const mock = await startMock();
const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--data', data], { encoding: 'utf8' }).trim();
const port = 20_000 + Math.floor(Math.random() * 20_000);
const [command, argv] = pinned(0, [process.execPath, cli, 'serve', '--port', String(port), '--data', data]);
const child = spawn(command, argv, {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: {
    ...process.env,
    NODE_OPTIONS: args['node-options'],
    SWITCHYARD_DEBUG_MEMORY: '5',
    ...mockProviderEnv(mock.port),
  },
});
const lines: Record<string, unknown>[] = [];
let phase = 'start';
createInterface({ input: child.stderr! }).on('line', (line) => {
  if (!line.includes('"msg":"memory"')) return;
  lines.push({ phase, ...JSON.parse(line) });
});
const url = `http://127.0.0.1:${port}/v1/chat/completions`;
const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
const body = SERVE_REQUEST_BODY;
await untilAnswered(() => answered(url, headers, body), 300);
await new Promise((done) => setTimeout(done, 6000));
phase = 'load';
const cpuBefore = cpuSeconds(child.pid!).all;
const run = await autocannon({ url, method: 'POST', headers, body, connections: 32, duration: Number(args.seconds) });
phase = 'after';
const cpuPerRequestUs = ((cpuSeconds(child.pid!).all - cpuBefore) * 1e6) / run['2xx'];
const mapped = residentByMapping(child.pid!);
await new Promise((done) => setTimeout(done, 6000));
child.kill('SIGKILL');
mock.stop();
rmSync(data, { recursive: true, force: true });

const spaceNames = ['new_space', 'old_space', 'code_space', 'large_object_space'];
const rps = (run['2xx'] / run.duration).toFixed(0);
console.log(
  `${run['2xx']} ok in ${run.duration} s (${rps} RPS), errors ${run.errors}, serve's CPU ` +
    `${cpuPerRequestUs.toFixed(0)} µs per request`,
);
const spaceColumns = spaceNames.map((name) => `${name} used / size`).join(' | ');
console.log(`| phase | RSS | heap used / total | ${spaceColumns} | external | arrayBuffers |`);
for (const line of lines as Array<Record<string, any>>) {
  const spaces = spaceNames.map((name) => `${line.spaces[name]?.used} / ${line.spaces[name]?.size}`);
  console.log(
    `| ${line.phase} | ${line.rssMb} | ${line.heapUsedMb} / ${line.heapTotalMb} | ${spaces.join(' | ')} | ` +
      `${line.externalMb} | ${line.arrayBuffersMb} |`,
  );
}
console.log('');
console.log(`resident at the end of the load, by mapping (MB): ${mapped}`);
const gcAt = (phase: string) => (lines.findLast((line) => line.phase === phase) as { gc?: Record<string, number> })?.gc;
const [gcStart, gcEnd] = [gcAt('start'), gcAt('load')];
if (gcStart && gcEnd) {
  const per = (key: string) => (((gcEnd[key]! - gcStart[key]!) * 1000) / run['2xx']).toFixed(1);
  console.log(
    `garbage collection per 1,000 requests: ${per('scavenges')} scavenges (${per('scavengeMs')} ms), ` +
      `${per('marks')} mark-compacts (${per('markMs')} ms)`,
  );
}
process.exit(0);

/**
 * The process's resident memory by what is mapped (/proc/<pid>/smaps): the node binary and other files, glibc's
 * main heap (`[heap]`), and anonymous memory (V8's heap, malloc's other arenas, thread stacks).
 */
function residentByMapping(pid: number): string {
  const sums = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[1]!.trim();
      name = path === '' ? 'anonymous' : path.startsWith('[') ? path : path.split('/').pop()!;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums.set(name, (sums.get(name) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...sums]
    .filter(([, mb]) => mb >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([what, mb]) => `${what} ${mb.toFixed(1)}`)
    .join(', ');
}
