/**
 * Where the CPU of a call goes. Runs bench/load.ts under `node --cpu-prof` for one scenario and for a baseline
 * scenario (default: createCompletion against the undici floor), keeps the samples of
 * the measured phase only, and prints per call: the top frames by self time, self time by area (our files, each
 * package, Node internals, GC), and the frames where the scenario spends more than the baseline.
 *
 *   node bench/profile.ts [--scenario ours] [--baseline floor] [--calls 4000] [--concurrency 32] [--top 20]
 * [--interval 250]
 *
 * Caveat: V8's sampler is signal-driven and over-counts frames that sit in system calls (randomFillSync, writev);
 * confirm any single frame with an A/B measurement before acting on it.
 *   node bench/profile.ts --import [dist|src]     # what importing the package costs, by dependency
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { areaOf, type CpuProfile, frameKey } from './cpu-profile.ts';
import { startMock } from './start-mock.ts';

const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'ours' },
    baseline: { type: 'string', default: 'floor' },
    calls: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '32' },
    top: { type: 'string', default: '20' },
    /** Sampling interval in µs: smaller is finer and slows the process more (100 µs roughly triples CPU per call). */
    interval: { type: 'string', default: '250' },
    import: { type: 'string' },
  },
});

const root = fileURLToPath(new URL('..', import.meta.url));
const node = process.execPath;

interface Breakdown {
  /** µs per call, by frame (self time). */
  frames: Map<string, number>;
  /** µs per call, by area (self time). */
  areas: Map<string, number>;
  /** µs per call, inclusive, for functions in src/. */
  ours: Map<string, number>;
  totalUsPerCall: number;
}

function run(command: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, command, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (part: Buffer) => (out += part.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command.join(' ')} exited with ${code}`)),
    );
  });
}

/**
 * Samples between the two marks, each counted once (not by the wall time to the next sample, which includes time
 * the process was descheduled on a busy machine), scaled so they add up to the CPU time the process measured.
 */
function analyse(profile: CpuProfile, fromUs: number, toUs: number, calls: number, cpuUs?: number): Breakdown {
  const byId = new Map(profile.nodes.map((entry) => [entry.id, entry]));
  const parent = new Map<number, number>();
  for (const entry of profile.nodes) for (const child of entry.children ?? []) parent.set(child, entry.id);
  const frames = new Map<string, number>();
  const areas = new Map<string, number>();
  const ours = new Map<string, number>();
  let total = 0;
  let time = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    time += profile.timeDeltas[index]!;
    const weight = 1;
    if (time < fromUs || time > toUs) continue;
    const leaf = byId.get(profile.samples[index]!)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    total += weight;
    const key = frameKey(leaf.callFrame);
    frames.set(key, (frames.get(key) ?? 0) + weight);
    const area = areaOf(leaf.callFrame.url, leaf.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + weight);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (!frame.url.includes('/src/')) continue;
      const ourKey = frameKey(frame);
      if (seen.has(ourKey)) continue;
      seen.add(ourKey);
      ours.set(ourKey, (ours.get(ourKey) ?? 0) + weight);
    }
  }
  // Without a CPU measurement (the import profile), a sample stands for the nominal 100 µs interval.
  const scale = (cpuUs ?? total * 100) / total / calls;
  const perCall = (map: Map<string, number>) => new Map([...map].map(([key, value]) => [key, value * scale]));
  return { frames: perCall(frames), areas: perCall(areas), ours: perCall(ours), totalUsPerCall: total * scale };
}

async function profileScenario(scenario: string, port: number): Promise<Breakdown> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-prof-'));
  try {
    const out = await run([
      '--cpu-prof',
      '--cpu-prof-dir',
      dir,
      '--cpu-prof-interval',
      args.interval!,
      '--expose-gc',
      'bench/load.ts',
      '--port',
      String(port),
      '--only',
      scenario,
      '--profile',
      args.calls!,
      '--concurrency',
      args.concurrency!,
    ]);
    const marks = JSON.parse(out.trim().split('\n').pop()!) as {
      profileStartUs: number;
      profileEndUs: number;
      calls: number;
      cpuUs: number;
    };
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    return analyse(profile, marks.profileStartUs, marks.profileEndUs, marks.calls, marks.cpuUs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function top(map: Map<string, number>, count: number): Array<[string, number]> {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
}

const fmt = (value: number) => value.toFixed(1).padStart(7);

function printTable(title: string, rows: Array<[string, number]>, total: number): void {
  console.log(`\n${title}`);
  console.log('|   µs/call | share | frame |');
  console.log('|----------:|------:|-------|');
  for (const [key, value] of rows)
    console.log(`| ${fmt(value)} | ${((value / total) * 100).toFixed(1).padStart(4)}% | ${key} |`);
}

/** Bare packages that `dist/<entry>` loads statically (following its own chunks), in first-seen order. */
function staticDependencies(entry: string): string[] {
  const seen = new Set<string>();
  const packages: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(root, 'dist', file), 'utf8');
    // Static imports only: `import … from "x"` and `export … from "x"`, not `import("x")`.
    for (const match of text.matchAll(/(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']/g)) {
      const specifier = match[1]!;
      if (specifier.startsWith('./')) visit(specifier.slice(2));
      else if (!isBuiltin(specifier) && !packages.includes(specifier)) packages.push(specifier);
    }
  };
  visit(entry);
  return packages;
}

async function importMs(script: string, conditions: string[] = [], times = 3): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < times; index++)
    samples.push(Number(await run([...conditions, '--input-type=module', '-e', script])));
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

/** Import time of the package, of its own code (dependencies preloaded), and of each static dependency alone. */
async function importProfile(which: string): Promise<void> {
  const conditions = which === 'src' ? ['--conditions=switchyard-source'] : [];
  const timeImport = (before: string[], specifier: string) =>
    `${before.map((name) => `await import(${JSON.stringify(name)});`).join(' ')} const t = performance.now(); await ` +
    `import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  const dependencies = staticDependencies('index.js');
  const total = await importMs(timeImport([], 'switchyard-llm'), conditions);
  const own = await importMs(timeImport(dependencies, 'switchyard-llm'), conditions);
  const together = await importMs(
    `const t = performance.now(); ${dependencies.map((name) => `await import(${JSON.stringify(name)});`).join(' ')} ` +
      `console.log(performance.now() - t);`,
  );
  console.log(`import('switchyard-llm') from ${which}, median of 3 fresh processes: ${total.toFixed(0)} ms`);
  console.log(
    `  its static dependencies together: ${together.toFixed(0)} ms; switchyard's own modules with them preloaded: ` +
      `${own.toFixed(0)} ms`,
  );
  console.log('| dependency (alone, fresh process) | ms |');
  console.log('|---|---:|');
  for (const name of dependencies) console.log(`| ${name} | ${(await importMs(timeImport([], name))).toFixed(0)} |`);
}

if (args.import !== undefined) {
  await importProfile(args.import || 'dist');
  process.exit(0);
}

const mock = await startMock();
try {
  const count = Number(args.top);
  const subject = await profileScenario(args.scenario!, mock.port);
  const baseline = await profileScenario(args.baseline!, mock.port);
  console.log(
    `${args.scenario}: ${subject.totalUsPerCall.toFixed(0)} µs sampled CPU per call; ${args.baseline}: ` +
      `${baseline.totalUsPerCall.toFixed(0)} µs (${args.calls} calls each at concurrency ${args.concurrency})`,
  );
  printTable(`Top frames of ${args.scenario} (self time)`, top(subject.frames, count), subject.totalUsPerCall);
  printTable(`${args.scenario} by area (self time)`, top(subject.areas, count), subject.totalUsPerCall);
  printTable(`${args.scenario}: our functions, inclusive`, top(subject.ours, count), subject.totalUsPerCall);
  const extra = new Map<string, number>();
  for (const [key, value] of subject.areas) extra.set(key, value - (baseline.areas.get(key) ?? 0));
  printTable(
    `Areas where ${args.scenario} spends more than ${args.baseline} (µs/call difference)`,
    top(extra, count).filter(([, value]) => value > 0),
    subject.totalUsPerCall,
  );
  const extraFrames = new Map<string, number>();
  for (const [key, value] of subject.frames) extraFrames.set(key, value - (baseline.frames.get(key) ?? 0));
  printTable(
    `Frames where ${args.scenario} spends more than ${args.baseline} (µs/call difference)`,
    top(extraFrames, count).filter(([, value]) => value > 0),
    subject.totalUsPerCall,
  );
} finally {
  mock.stop();
}
