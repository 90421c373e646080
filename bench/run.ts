/**
 * Switchyard's benchmark: one command, one table, and a verdict on each performance target.
 *
 *   node bench/run.ts [--rounds 5] [--seq 200] [--calls 1000] [--concurrency 32] [--quick] [--json out.json]
 *
 * 1. Starts bench/mock-server.ts (a fixed chat completion and SSE stream on loopback) in its own process.
 * 2. Import time of `switchyard` in fresh processes (src via --conditions=switchyard-source, and dist/index.js when
 *    built), median of 5; the first call to each provider (lazy SDK import), median of 5 fresh processes.
 * 3. Installed size: the production dependency closure from package-lock.json (`du`), and `npm pack --dry-run`.
 * 4. bench/load.ts in a fresh process: every client, sequential and at --concurrency, interleaved over rounds.
 *
 * Ratios are computed within this run (per round, then the median over rounds): compare runs by their ratios, never
 * by absolute numbers. See docs/performance.md for the method and the caveats.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BatchStats, LoadResult } from './load.ts';
import { startMock } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    seq: { type: 'string' },
    calls: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    'skip-startup': { type: 'boolean', default: false },
    /**
     * Print the table of earlier runs saved with --json (comma-separated files): rounds pooled, medians across runs.
     */
    merge: { type: 'string' },
  },
});
const rounds = args.rounds ?? (args.quick ? '2' : '5');
const seq = args.seq ?? (args.quick ? '100' : '200');
const calls = args.calls ?? (args.quick ? '500' : '1000');
const concurrency = Number(args.concurrency);
const cN = `c${concurrency}`;

const root = fileURLToPath(new URL('..', import.meta.url));
const node = process.execPath;
const log = (message: string) => process.stderr.write(`${message}\n`);

function median(values: number[]): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function runNode(argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (part: Buffer) => (out += part.toString()));
    child.stderr.on('data', (part: Buffer) => {
      err += part.toString();
      if (argv.includes('bench/load.ts')) process.stderr.write(part);
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`node ${argv.join(' ')} exited with ${code}\n${err}`)),
    );
  });
}

/** Milliseconds `import(specifier)` takes in a fresh process, median of `times`. */
async function importTime(specifier: string, conditions: string[], times = 5): Promise<number> {
  const script = [
    'const t = performance.now();',
    `await import(${JSON.stringify(specifier)});`,
    'console.log(performance.now() - t);',
  ].join(' ');
  const samples: number[] = [];
  for (let index = 0; index < times; index++)
    samples.push(Number(await runNode([...conditions, '--input-type=module', '-e', script])));
  return median(samples);
}

async function firstCall(port: number, target: string, times = 5): Promise<{ firstMs: number; extraMs: number }> {
  const first: number[] = [];
  const extra: number[] = [];
  for (let index = 0; index < times; index++) {
    const out = await runNode(['bench/first-call.ts', '--port', String(port), '--target', target]);
    const result = JSON.parse(out.trim().split('\n').pop()!) as { firstMs: number; secondMs: number };
    first.push(result.firstMs);
    extra.push(result.firstMs - result.secondMs);
  }
  return { firstMs: median(first), extraMs: median(extra) };
}

/** Kilobytes on disk of the production dependency closure (package-lock entries not marked dev), and the largest. */
function dependencySize(): { totalKb: number; count: number; largest: Array<[string, number]> } {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  const paths = Object.entries(lock.packages)
    .filter(
      ([path, info]) =>
        path.startsWith('node_modules/') && !info.dev && !info.devOptional && existsSync(join(root, path)),
    )
    .map(([path]) => path);
  const included = new Set(paths);
  // A nested package is inside its parent's directory: count it through the parent only.
  const outermost = paths.filter((path) => {
    const parts = path.split('/node_modules/');
    for (let depth = 1; depth < parts.length; depth++)
      if (included.has(parts.slice(0, depth).join('/node_modules/'))) return false;
    return true;
  });
  const out = execFileSync('du', ['-sk', ...outermost], { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 });
  const sizes = out
    .trim()
    .split('\n')
    .map((line) => {
      const [kb, path] = line.split('\t');
      return [path!.replace(/^node_modules\//, ''), Number(kb)] as [string, number];
    });
  return {
    totalKb: sizes.reduce((sum, [, kb]) => sum + kb, 0),
    count: paths.length,
    largest: sizes.sort((a, b) => b[1] - a[1]).slice(0, 5),
  };
}

function packSize(): { sizeKb: number; unpackedKb: number; files: number } | undefined {
  try {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [pack] = JSON.parse(out) as Array<{ size: number; unpackedSize: number; entryCount: number }>;
    return { sizeKb: pack!.size / 1024, unpackedKb: pack!.unpackedSize / 1024, files: pack!.entryCount };
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------

interface Startup {
  importMs: Array<[string, number, string]>;
  firstCalls: Array<[string, { firstMs: number; extraMs: number }]>;
}
interface Report {
  load: LoadResult;
  /** Bytes allocated per call, by case (`null`: a collection ran in every try); absent in older saved runs. */
  allocations?: Record<string, number | null>;
  startup: Startup;
  size: ReturnType<typeof dependencySize>;
  pack: ReturnType<typeof packSize>;
}

async function measure(): Promise<Report> {
  const hasDist = existsSync(join(root, 'dist/index.js'));
  log(
    `switchyard bench: node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}); ` +
      `rounds ${rounds}, seq ${seq}, ${cN} ${calls}`,
  );
  if (!hasDist) log('dist/index.js is missing: the dist import time is skipped (npm run build to include it)');
  const mock = await startMock();
  let load: LoadResult;
  let allocations: Record<string, number | null> | undefined;
  const startup: Startup = { importMs: [], firstCalls: [] };
  try {
    if (!args['skip-startup']) {
      log('import times (fresh processes, median of 5)…');
      startup.importMs.push([
        'import switchyard (src, --conditions=switchyard-source)',
        await importTime('switchyard-llm', ['--conditions=switchyard-source']),
        'type stripping included',
      ]);
      if (hasDist)
        startup.importMs.push([
          'import switchyard (dist/index.js)',
          await importTime('switchyard-llm', []),
          'what users load',
        ]);
      startup.importMs.push(['import openai (reference)', await importTime('openai', []), '']);
      startup.importMs.push([
        'import ai + @ai-sdk/openai-compatible (reference)',
        (await importTime('ai', [])) + (await importTime('@ai-sdk/openai-compatible', [])),
        'sum of two',
      ]);
      startup.importMs.push([
        'import undici (reference)',
        await importTime('undici', []),
        'loaded lazily by the pooled fetch',
      ]);
      log('first calls (fresh processes, median of 5)…');
      for (const target of [
        'openai-sdk',
        'openai',
        'openai-pooled',
        'anthropic',
        'anthropic-pooled',
        'google',
        'google-pooled',
      ]) {
        startup.firstCalls.push([target, await firstCall(mock.port, target)]);
      }
    }
    log('load benchmark…');
    const out = await runNode([
      '--expose-gc',
      'bench/load.ts',
      '--port',
      String(mock.port),
      '--rounds',
      rounds,
      '--seq',
      seq,
      '--calls',
      calls,
      '--concurrency',
      String(concurrency),
    ]);
    load = JSON.parse(out.trim().split('\n').pop()!) as LoadResult;
    log('allocations per call (a young generation large enough that no collection runs)…');
    const allocOut = await runNode([
      '--expose-gc',
      '--max-semi-space-size=256',
      '--min-semi-space-size=256',
      'bench/load.ts',
      '--port',
      String(mock.port),
      '--alloc',
      '300',
    ]);
    allocations = JSON.parse(allocOut.trim().split('\n').pop()!) as Record<string, number | null>;
  } finally {
    mock.stop();
  }
  return { load, allocations, startup, size: dependencySize(), pack: hasDist ? packSize() : undefined };
}

/** Several saved runs as one: their rounds side by side, latency percentiles and startup numbers as medians. */
function merge(reports: Report[]): Report {
  const [first] = reports;
  const load: LoadResult = { settings: { ...first!.load.settings, rounds: 0 }, rounds: {}, pooled: {} };
  for (const report of reports) {
    load.settings.rounds += report.load.settings.rounds;
    for (const [name, byMode] of Object.entries(report.load.rounds)) {
      for (const [mode, list] of Object.entries(byMode)) ((load.rounds[name] ??= {})[mode] ??= []).push(...list);
    }
  }
  for (const [name, byMode] of Object.entries(first!.load.pooled)) {
    for (const mode of Object.keys(byMode)) {
      const values = reports.map((report) => report.load.pooled[name]?.[mode]).filter((value) => value !== undefined);
      const pick = (field: 'medianMs' | 'p99Ms' | 'ttfcMedianMs' | 'ttfcP99Ms') => {
        const numbers = values.map((value) => value[field]).filter((value): value is number => value !== null);
        return numbers.length ? median(numbers) : null;
      };
      (load.pooled[name] ??= {})[mode] = {
        medianMs: pick('medianMs')!,
        p99Ms: pick('p99Ms')!,
        ttfcMedianMs: pick('ttfcMedianMs'),
        ttfcP99Ms: pick('ttfcP99Ms'),
      };
    }
  }
  const startup: Startup = {
    importMs: first!.startup.importMs.map(([label, , note], index) => [
      label,
      median(reports.map((report) => report.startup.importMs[index]?.[1] ?? Number.NaN)),
      note,
    ]),
    firstCalls: first!.startup.firstCalls.map(([target], index) => [
      target,
      {
        firstMs: median(reports.map((report) => report.startup.firstCalls[index]?.[1].firstMs ?? Number.NaN)),
        extraMs: median(reports.map((report) => report.startup.firstCalls[index]?.[1].extraMs ?? Number.NaN)),
      },
    ]),
  };
  return { load, startup, size: first!.size, pack: first!.pack };
}

const report = args.merge
  ? merge(args.merge.split(',').map((file) => JSON.parse(readFileSync(file, 'utf8')) as Report))
  : await measure();
if (args.json && !args.merge) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
const { load, startup, size, pack, allocations } = report;
const runs = args.merge ? args.merge.split(',').length : 1;

// ---------------------------------------------------------------------------------------------------------------

const perRound = (name: string, mode: string, field: keyof BatchStats): number[] =>
  (load.rounds[name]?.[mode] ?? []).map((stats) => stats[field] as number);
const med = (name: string, mode: string, field: keyof BatchStats) => median(perRound(name, mode, field));
/** Median over rounds of the per-round ratio a/b (paired, so drift between rounds cancels). */
function ratio(a: string, b: string, mode: string, field: keyof BatchStats): number {
  const left = perRound(a, mode, field);
  const right = perRound(b, mode, field);
  return median(left.map((value, index) => value / right[index]!));
}
function difference(a: string, b: string, mode: string, field: keyof BatchStats): number {
  const left = perRound(a, mode, field);
  const right = perRound(b, mode, field);
  return median(left.map((value, index) => value - right[index]!));
}

const f1 = (value: number | null | undefined) =>
  value == null || !Number.isFinite(value) ? '' : value.toFixed(value < 10 ? 2 : 1);
const f0 = (value: number | null | undefined) => (value == null || !Number.isFinite(value) ? '' : value.toFixed(0));
const x = (value: number) => `${value.toFixed(2)}×`;
/** A difference with its sign: +12 or −3. */
const signed = (value: number) =>
  Number.isFinite(value) ? `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(0)}` : '';

const labels: Record<string, string> = {
  floor: 'undici.request POST (floor)',
  sdk: 'openai SDK, defaults',
  'sdk-pooled': 'openai SDK + createPooledFetch',
  ours: 'createCompletion (defaults: wire transport)',
  'ours-sdk': 'createCompletion, SDK transport (before)',
  'ours-schema': 'createCompletion json_schema',
  'ours-schema-sdk': 'createCompletion json_schema, SDK transport (before)',
  ai: 'AI SDK generateText',
  'floor-stream': 'stream: undici.request SSE (floor)',
  'sdk-stream': 'stream: openai SDK',
  'ours-stream': 'stream: createCompletion',
  'ours-stream-sdk': 'stream: createCompletion, SDK transport (before)',
  'ai-stream': 'stream: AI SDK streamText',
  'sdk-stub': 'in-process (stub fetch): openai SDK',
  'ours-stub': 'in-process: createCompletion',
  'ours-stub-sdk': 'in-process: createCompletion, SDK transport (before)',
  'ours-schema-stub': 'in-process: createCompletion json_schema',
  'ours-schema-stub-sdk': 'in-process: createCompletion json_schema, SDK transport (before)',
  'sdk-stream-stub': 'in-process: openai SDK stream',
  'ours-stream-stub': 'in-process: createCompletion stream',
};

function ratios(name: string): string {
  if (name.endsWith('-stub') || name.endsWith('-stub-sdk')) {
    if (name.startsWith('sdk')) return 'reference (no network: client-side CPU only)';
    const reference = name.includes('stream') ? 'sdk-stream-stub' : 'sdk-stub';
    return (
      `CPU ${signed(difference(name, reference, cN, 'cpuUsPerCall'))} µs (${cN}), ` +
      `${signed(difference(name, reference, 'seq', 'cpuUsPerCall'))} µs (seq) vs ${reference}; calls/s ` +
      `${x(ratio(name, reference, cN, 'callsPerSecond'))}`
    );
  }
  if (name === 'sdk') return 'reference (SDK)';
  const stream = name.endsWith('-stream') || name.includes('-stream-');
  if (name === 'floor' || name === 'floor-stream') return 'reference';
  if (!stream) {
    const parts = [
      `median ${x(ratio(name, 'sdk', 'seq', 'medianMs'))} SDK`,
      `calls/s ${x(ratio(name, 'sdk', cN, 'callsPerSecond'))} SDK, ${x(ratio(name, 'floor', cN, 'callsPerSecond'))} ` +
        `floor`,
      `CPU ${signed(difference(name, 'floor', cN, 'cpuUsPerCall'))} µs vs floor`,
    ];
    if (name.startsWith('ours')) {
      const sdkWithSameFetch = name.endsWith('-sdk') ? 'sdk-pooled' : 'sdk';
      parts.push(`${signed(difference(name, sdkWithSameFetch, cN, 'cpuUsPerCall'))} µs vs ${sdkWithSameFetch}`);
    }
    return parts.join('; ');
  }
  if (name === 'sdk-stream') return `TTFC ${x(ratio(name, 'floor-stream', 'seq', 'ttfcMedianMs'))} floor`;
  return (
    `TTFC ${x(ratio(name, 'sdk-stream', 'seq', 'ttfcMedianMs'))} SDK; CPU ` +
    `${x(ratio(name, 'ai-stream', cN, 'cpuUsPerCall'))} AI SDK, ${x(ratio(name, 'sdk-stream', cN, 'cpuUsPerCall'))} ` +
    `SDK`
  );
}

const header = [
  'case',
  'median ms',
  'p99 ms',
  'calls/s',
  `${cN} median ms`,
  `${cN} p99 ms`,
  `${cN} calls/s`,
  'CPU µs/call',
  `${cN} CPU µs/call`,
  'TTFC ms',
  'ratios (same run, median of per-round ratios)',
];
const rows: string[][] = [];
for (const name of Object.keys(labels)) {
  if (!load.rounds[name]) continue;
  const pooledSeq = load.pooled[name]?.seq;
  const pooledC = load.pooled[name]?.[cN];
  rows.push([
    labels[name]!,
    f1(pooledSeq?.medianMs),
    f1(pooledSeq?.p99Ms),
    f0(med(name, 'seq', 'callsPerSecond')),
    f1(pooledC?.medianMs),
    f1(pooledC?.p99Ms),
    f0(med(name, cN, 'callsPerSecond')),
    f0(med(name, 'seq', 'cpuUsPerCall')),
    f0(med(name, cN, 'cpuUsPerCall')),
    f1(pooledSeq?.ttfcMedianMs ?? null),
    ratios(name),
  ]);
}
for (const [label, ms, note] of startup.importMs) rows.push([label, f1(ms), '', '', '', '', '', '', '', '', note]);
for (const [target, result] of startup.firstCalls) {
  rows.push([
    `first call: ${target}`,
    f1(result.firstMs),
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    `${signed(result.extraMs)} ms over the 2nd call (lazy import, client)`,
  ]);
}
rows.push([
  'installed size: production dependencies',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  `${(size.totalKb / 1024).toFixed(1)} MB in ${size.count} packages; largest ` +
    `${size.largest.map(([name, kb]) => `${name} ${(kb / 1024).toFixed(1)} MB`).join(', ')}`,
]);
if (pack)
  rows.push([
    'npm pack (own files)',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    `${pack.sizeKb.toFixed(0)} kB packed, ${(pack.unpackedKb / 1024).toFixed(1)} MB unpacked, ${pack.files} files`,
  ]);

console.log(
  `\nswitchyard bench — node ${load.settings.node}, ${load.settings.cpus} CPUs, ` +
    `${runs > 1 ? `${runs} runs, ` : ''}${load.settings.rounds} rounds × (seq ${load.settings.seq} + ${cN} ` +
    `${load.settings.calls}; in-process cases ×4) per case; latency percentiles over all ` +
    `calls${runs > 1 ? ' (median of runs)' : ''}; calls/s and CPU are medians of rounds\n`,
);
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map((_, index) => (index === 0 || index === header.length - 1 ? '---' : '---:')).join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
if (allocations) {
  console.log('\n| case | allocated per call (kB) |\n|---|---:|');
  for (const [name, bytes] of Object.entries(allocations))
    console.log(`| ${labels[name] ?? name} | ${bytes === null ? 'n/a (collected)' : (bytes / 1024).toFixed(1)} |`);
}

// The performance targets of issue 27 (docs/performance.md), judged on the ratios of this run: after (the wire
// transport, the default) beside before (the same gateway on the SDK transport).
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const lines: string[] = [];
const pair = (after: string, before: string, measure: (name: string) => number, digits = 2) =>
  `${measure(after).toFixed(digits)} (before ${measure(before).toFixed(digits)})`;
if (load.rounds.ours && load.rounds['ours-sdk']) {
  const share = (name: string) => ratio(name, 'floor', cN, 'callsPerSecond');
  const cpu = (name: string) => ratio(name, 'floor', cN, 'cpuUsPerCall');
  lines.push(
    `createCompletion ${cN} calls/s vs the floor: ${pair('ours', 'ours-sdk', share)}× (≥ 0.6×: ` +
      `${verdict(share('ours') >= 0.6)})`,
  );
  lines.push(
    `createCompletion CPU per call vs the floor's: ${pair('ours', 'ours-sdk', cpu)}× (≤ 2×: ` +
      `${verdict(cpu('ours') <= 2)})`,
  );
}
for (const [name, limit] of [
  ['ours-stub', 60],
  ['ours-schema-stub', 90],
] as const) {
  if (!load.rounds[name] || !load.rounds[`${name}-sdk`]) continue;
  const cpu = (case_: string) => med(case_, cN, 'cpuUsPerCall');
  lines.push(
    `${labels[name]} (stub fetch, all our own work): ${pair(name, `${name}-sdk`, cpu, 0)} µs CPU per ` +
      `call (≤ ${limit} µs: ${verdict(cpu(name) <= limit)})`,
  );
}
if (load.rounds['ours-stream'] && load.rounds['ours-stream-sdk'] && load.rounds['floor-stream']) {
  const ttfc = (name: string) => ratio(name, 'floor-stream', 'seq', 'ttfcMedianMs');
  lines.push(
    `stream first chunk vs the floor's: ${pair('ours-stream', 'ours-stream-sdk', ttfc)}× (≤ 1.3×: ` +
      `${verdict(ttfc('ours-stream') <= 1.3)})`,
  );
}
const core = startup.importMs.find(([label]) => label.includes('dist')) ?? startup.importMs[0];
if (core) lines.push(`${core[0]}: ${f0(core[1])} ms (≤ 60 ms: ${verdict(core[1] <= 60)})`);
lines.push(
  `production install: ${(size.totalKb / 1024).toFixed(1)} MB (≤ 60 MB: ${verdict(size.totalKb / 1024 <= 60)})`,
);
console.log(`\nTargets (issue 27):\n${lines.map((line) => `- ${line}`).join('\n')}`);

process.exit(0);
