/**
 * Runs the shared scenario (scenario.ts) in each runtime and prints its table: `node test/runtimes/run.ts [runtime…]`
 * with runtimes among node, bun, deno, workerd, chromium (default: all). Needs `npm run build` first: each runtime
 * loads the built package through its `exports`, as an application would. Binaries: bun, deno and the Miniflare
 * package from SWITCHYARD_RUNTIMES (a directory with node_modules/.bin/{bun,deno} and node_modules/miniflare), esbuild
 * from the project, Chromium from SWITCHYARD_CHROMIUM (default /usr/bin/chromium). Exits 1 when a row fails.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type FakeProviders, formatRows, type Row } from './scenario.ts';
import { startPageServer, startScenarioFakes } from './scenario-host.ts';

const root = resolve(import.meta.dirname, '../..');
const runtimesDir = process.env.SWITCHYARD_RUNTIMES ?? '/tmp/rt';
const chromium = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';
const work = mkdtempSync(join(tmpdir(), 'switchyard-runtimes-'));
const run = promisify(execFile);
const TIMEOUT = 120_000;

/**
 * An application of its own: the scenario's files beside a node_modules holding this package as npm installs it (the
 * packed tarball, unpacked) and its dependencies (links to this checkout's), so every runtime and bundler resolves
 * `switchyard-llm` through the published `exports` and files, as in a user's project.
 */
const app = join(work, 'app');
async function makeApplication(): Promise<void> {
  const modules = join(app, 'node_modules');
  const installed = join(modules, 'switchyard-llm');
  mkdirSync(installed, { recursive: true });
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: root,
  });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  await run('tar', ['-xzf', join(work, filename), '-C', installed, '--strip-components=1']);
  for (const dependency of readdirSync(join(root, 'node_modules'))) {
    if (dependency.startsWith('.') || dependency === 'switchyard-llm') continue;
    symlinkSync(join(root, 'node_modules', dependency), join(modules, dependency));
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module', dependencies: { 'switchyard-llm': '*' } }));
  for (const file of ['scenario.ts', 'script-entry.ts', 'worker-entry.ts', 'page-entry.ts'])
    copyFileSync(join(import.meta.dirname, file), join(app, file));
}

async function bundle(entry: string, platform: 'browser' | 'neutral', conditions: string[]): Promise<string> {
  const esbuild = (await import('esbuild')) as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(app, entry)],
    bundle: true,
    format: 'esm',
    platform,
    conditions,
    mainFields: ['module', 'main'],
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const parseRows = (text: string): Row[] => JSON.parse(text.trim().split('\n').at(-1)!) as Row[];

const runners: Record<string, (fakes: FakeProviders) => Promise<Row[]>> = {
  async node(fakes) {
    const { stdout } = await run(process.execPath, [join(app, 'script-entry.ts'), JSON.stringify(fakes)], {
      cwd: app,
      timeout: TIMEOUT,
      env: { PATH: process.env.PATH ?? '' },
    });
    return parseRows(stdout);
  },
  async bun(fakes) {
    const bun = join(runtimesDir, 'node_modules/.bin/bun');
    const { stdout } = await run(bun, ['run', join(app, 'script-entry.ts'), JSON.stringify(fakes)], {
      cwd: app,
      timeout: TIMEOUT,
      env: { PATH: process.env.PATH ?? '' },
    });
    return parseRows(stdout);
  },
  async deno(fakes) {
    const deno = join(runtimesDir, 'node_modules/.bin/deno');
    // Only network to loopback and reading the package: no --allow-env (keys are passed in code).
    const { stdout } = await run(
      deno,
      [
        'run',
        '--allow-net=127.0.0.1',
        `--allow-read=${app},${root}/node_modules`,
        join(app, 'script-entry.ts'),
        JSON.stringify(fakes),
      ],
      {
        cwd: app,
        timeout: TIMEOUT,
        env: { PATH: process.env.PATH ?? '', DENO_DIR: join(work, 'deno'), DENO_NO_UPDATE_CHECK: '1' },
      },
    );
    return parseRows(stdout);
  },
  async workerd(fakes) {
    const script = await bundle('worker-entry.ts', 'neutral', ['workerd', 'worker', 'browser', 'import', 'default']);
    const require = createRequire(join(runtimesDir, 'node_modules/'));
    // Miniflare is not a dependency of the project: CI installs it beside bun and deno (SWITCHYARD_RUNTIMES).
    const { Miniflare } = require('miniflare') as {
      Miniflare: new (
        options: object,
      ) => {
        dispatchFetch(url: string): Promise<{ status: number; text(): Promise<string> }>;
        dispose(): Promise<void>;
      };
    };
    // No compatibility flags: no nodejs_compat, as a Worker is deployed by default.
    const miniflare = new Miniflare({ modules: true, script, compatibilityDate: '2025-09-01' });
    try {
      const response = await miniflare.dispatchFetch(
        `http://worker/?fakes=${encodeURIComponent(JSON.stringify(fakes))}`,
      );
      const text = await response.text();
      if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text) as Row[];
    } finally {
      await miniflare.dispose();
    }
  },
  async chromium(fakes) {
    const script = await bundle('page-entry.ts', 'browser', ['browser', 'import', 'default']);
    let deliver: (rows: Row[]) => void = () => {};
    const delivered = new Promise<Row[]>((resolve) => (deliver = resolve));
    const page = await startPageServer(fakes, script, (rows) => deliver(rows as Row[]));
    const profile = join(work, 'chromium');
    const browser = spawn(
      chromium,
      ['--headless=new', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--no-first-run', page.origin],
      // Its own process group: Chromium's helpers (zygote, renderers) are killed with it, so none is still writing
      // to the profile when the work directory is removed.
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    const exited = new Promise<void>((resolve) => browser.once('exit', () => resolve()));
    let log = '';
    browser.stderr.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-4000)));
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`no result from the page in ${TIMEOUT} ms; chromium said: ${log}`)),
        TIMEOUT,
      ).unref(),
    );
    try {
      return await Promise.race([delivered, timeout]);
    } finally {
      try {
        if (browser.pid !== undefined) process.kill(-browser.pid, 'SIGKILL');
      } catch {
        browser.kill('SIGKILL'); // the group is gone already
      }
      await exited;
      await page.close();
    }
  },
};

const asked = process.argv.slice(2);
const names = asked.length ? asked : Object.keys(runners);
await makeApplication();
const { fakes, close } = await startScenarioFakes();
let failed = false;
try {
  for (const name of names) {
    const runner = runners[name];
    if (!runner) throw new Error(`unknown runtime ${name}; one of ${Object.keys(runners).join(', ')}`);
    let rows: Row[];
    try {
      rows = await runner(fakes);
    } catch (error) {
      rows = [{ check: 'load and run', ok: false, detail: (error as Error).message.slice(0, 2000) }];
    }
    failed ||= rows.some((row) => !row.ok) || rows.length === 0;
    console.log(`${formatRows(name, rows)}\n`);
  }
} finally {
  await close();
  // A leftover file (a browser helper's late write) is not a failed scenario: retried, then reported.
  try {
    rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (error) {
    console.warn(`could not remove ${work}: ${(error as Error).message}`);
  }
}
process.exitCode = failed ? 1 : 0;
