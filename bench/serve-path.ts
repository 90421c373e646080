/**
 * Where one call's time goes at one connection, inside the server: `switchyard serve` beside the bare undici proxy
 * and the essential gateway (bench/server.ts says what each is), timed alike by bench/path-probe.ts from Node's
 * own events. The added latency at c1 (bench/server.ts) is the server's critical path: what it does between the
 * client's request and its upstream request ("before"), and between the provider's first byte and its reply
 * ("after": reading the answer whole, then for serve and the essential gateway the answer's JSON, the record and its
 * journal write, then the reply). Sequential calls through one undici connection; rounds alternate the servers.
 *
 *   npm run build, then node bench/serve-path.ts [--requests 5000] [--rounds 3] [--before <tree>]
 *
 * Servers on core 0, this process and the mock on core 1. Medians of each round, in µs; the probes' own cost
 * (a few µs a request) is in every server's figures alike.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { allocatorEnvironment, SERVE_HEAP_FLAGS } from '../src/cli/serve-process.ts';
import { SERVE_REQUEST_BODY } from './payloads.ts';
import { pinSelfToLoadCore } from './pinning.ts';
import { freePort } from './processes.ts';
import { spawnServer, startMock, untilAnswered } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    before: { type: 'string' },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const node = process.execPath;
const probe = join(root, 'bench/path-probe.ts');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const body = SERVE_REQUEST_BODY;
const ESSENTIAL_KEY = 'sy-essential-bench-key';
type Spans = Record<'before' | 'provider' | 'afterToEnd' | 'endToJournal' | 'journalToReply' | 'after', number[]>;

interface Server {
  name: string;
  /** Starts it; resolves to its port, its key, its process and where its probe writes. */
  start(): Promise<{ port: number; key?: string; child: ChildProcess; out: string; work: string }>;
}

pinSelfToLoadCore();
const mock = await startMock();

function launch(argv: string[], env: Record<string, string>, work: string) {
  const out = join(work, 'spans.json');
  const child = spawnServer([node, ...argv], mock.port, {
    NODE_OPTIONS: `--import ${probe}`,
    PATH_PROBE_OUT: out,
    ...env,
  });
  return { child, out };
}

function serveFrom(name: string, tree: string): Server {
  const cli = join(tree, 'dist/cli.js');
  return {
    name,
    async start() {
      const work = mkdtempSync(join(tmpdir(), 'switchyard-path-'));
      const data = join(work, 'data');
      const key = execFileSync(node, [cli, 'keys', 'create', '--data', data], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      const port = await freePort();
      const argv = [...SERVE_HEAP_FLAGS, cli, 'serve', '--port', String(port), '--data', data];
      return { port, key, work, ...launch(argv, allocatorEnvironment(process.env) ?? {}, work) };
    },
  };
}

const servers: Server[] = [
  {
    name: 'bare undici proxy',
    async start() {
      const work = mkdtempSync(join(tmpdir(), 'switchyard-path-'));
      const port = await freePort();
      return { port, work, ...launch(['bench/undici-proxy.ts', String(port)], {}, work) };
    },
  },
  {
    name: 'essential gateway',
    async start() {
      const work = mkdtempSync(join(tmpdir(), 'switchyard-path-'));
      const port = await freePort();
      const argv = [...SERVE_HEAP_FLAGS, 'bench/essential-gateway.ts', String(port), join(work, 'data')];
      const env = { GATEWAY_KEY: ESSENTIAL_KEY, ...(allocatorEnvironment(process.env) ?? {}) };
      return { port, key: ESSENTIAL_KEY, work, ...launch(argv, env, work) };
    },
  },
  ...(args.before ? [serveFrom('switchyard serve (before)', resolve(args.before))] : []),
  serveFrom('switchyard serve', root),
];

/** One round of one server: a warm-up, then `--requests` sequential calls; the probe's spans of the measured ones. */
async function measure(server: Server): Promise<Spans> {
  const { port, key, child, out, work } = await server.start();
  const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
  const headers = { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
  const call = async () => {
    const answer = await client.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
    await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`${server.name} answered ${answer.statusCode}`);
  };
  try {
    await untilAnswered(call);
    for (let index = 0; index < 2000; index += 1) await call();
    await sleep(1200);
    const warm = (JSON.parse(readFileSync(out, 'utf8')) as Spans).before.length;
    for (let index = 0; index < Number(args.requests); index += 1) await call();
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    const spans = JSON.parse(readFileSync(out, 'utf8')) as Spans;
    return Object.fromEntries(Object.entries(spans).map(([name, values]) => [name, values.slice(warm)])) as Spans;
  } finally {
    await client.close();
    child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
const rounds = new Map<string, Spans[]>(servers.map((server) => [server.name, []]));
for (let round = 0; round < Number(args.rounds); round += 1) {
  for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
    rounds.get(server.name)!.push(await measure(server));
    console.error(`round ${round + 1}: ${server.name} done`);
  }
}
mock.stop();

const COLUMNS: Array<[keyof Spans, string]> = [
  ['before', 'request → upstream write'],
  ['provider', 'upstream write → answer (the mock, loopback)'],
  ['afterToEnd', 'answer → read whole'],
  ['endToJournal', 'read whole → journal write'],
  ['journalToReply', 'journal write → reply'],
  ['after', 'answer → reply (all)'],
];
console.log(`c1 critical path, µs: median of each round's ${args.requests} calls (rounds in brackets)\n`);
console.log(`| server | ${COLUMNS.map(([, title]) => title).join(' | ')} | before + after |`);
console.log(`|---|${COLUMNS.map(() => '---:|').join('')}---:|`);
for (const [name, results] of rounds) {
  const cell = (column: keyof Spans) => {
    const each = results.map((spans) => median(spans[column]));
    return `${median(each).toFixed(0)} (${each.map((value) => value.toFixed(0)).join(', ')})`;
  };
  const total = results.map((spans) => median(spans.before) + median(spans.after));
  console.log(`| ${name} | ${COLUMNS.map(([column]) => cell(column)).join(' | ')} | ${median(total).toFixed(0)} |`);
}
