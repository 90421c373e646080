/**
 * What a browser bundle of the library weighs (issue 38, item 7): esbuild bundles an application that makes a
 * gateway and calls `createCompletion` (OpenAI, Anthropic and Gemini are built in), minified, for the browser, from
 * the package's web build as a bundler resolves it, split into chunks; the size is every chunk the page loads to
 * make its calls (run by Node), the metafile tells each part's cost. Run directly (`node test/runtime/web-bundle.ts`,
 * after `npm run build`) it prints the table docs/performance.md quotes.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { jsonAsString, nodeOnlyPackages, webSeams } from '../../tsup.web.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

const root = resolve(import.meta.dirname, '../..');

/** The application: what the issue's budget is for (the page gives the providers' keys and addresses). */
const APPLICATION = `import { createGateway, createCompletion } from 'switchyard-llm';
const gateway = createGateway({ env: globalThis.providerEnv });
globalThis.gateway = gateway;
globalThis.once = createCompletion;
`;

export interface Part {
  part: string;
  minified: number;
  /** Its share of the gzipped bundle, in proportion to its minified bytes. */
  gzipped: number;
}

export interface BundleSize {
  minified: number;
  gzipped: number;
  parts: Part[];
  /** The largest modules of what the page loaded, minified bytes each, largest first. */
  modules: Array<{ module: string; minified: number }>;
  /** The chunks the page loaded: before it ran (imported by the entry), and in all, its calls' imports included. */
  chunks: { atLoad: number; loaded: number; written: number };
  /** What the page's calls answered, and its call records. */
  page: { texts: string[]; stats: { written: number; failed: number; dropped: number }; records: number };
}

/** The part of the library (or a dependency) a bundled file belongs to, as docs/performance.md lists them. */
function partOf(input: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
  if (inPackage) return inPackage === 'zod' ? 'zod (catalog, deployment and schema checks)' : inPackage;
  if (input.startsWith('node-only:')) return 'left out (SDKs, undici): stubs';
  if (input.endsWith('catalog/models.json')) return 'catalog: the model data';
  const folder = /^src\/([^/]+)/.exec(input)?.[1];
  if (folder === 'catalog') return 'catalog: its code';
  if (folder === 'providers') return 'providers (OpenAI family, Anthropic, Gemini, Bedrock, Vertex, simulator)';
  if (folder === 'structured-output') return 'structured outputs (the validator seam)';
  if (folder === 'dialects') return 'dialects';
  return 'core (pipeline, routing, records, deployments)';
}

/**
 * `from: 'package'` bundles the built web build of the package in `packageDir` (default this checkout, after `npm
 * run build`) as a bundler resolves it: the size an application gets. `'source'` bundles src/ through the same seams
 * and plugins as the web build, so the metafile names each source file and the parts can be told apart (the two
 * totals differ by what splitting the build into chunks costs). The bundle is then run, as a page would run it, by
 * Node: three calls (OpenAI, Anthropic, Gemini) and a streamed one to the fake providers, recorded; the size is
 * every chunk it loaded, the entry's and those its calls imported (a provider's adapter is loaded by its first call).
 */
export async function measureWebBundle(from: 'package' | 'source', packageDir = root): Promise<BundleSize> {
  const app = mkdtempSync(join(tmpdir(), 'switchyard-web-bundle-'));
  try {
    const { result, atLoad } = await bundleApplication(app, from, packageDir);
    const { loaded: urls, ...page } = await runPage(join(app, 'out'));
    const loaded = new Set(urls.map((url) => relative(root, fileURLToPath(url))));
    const files = result.outputFiles!.filter((file) => loaded.has(relative(root, file.path)));
    const output = Buffer.concat(files.map((file) => file.contents));
    const gzipped = files.reduce((total, file) => total + gzipSync(file.contents, { level: 9 }).length, 0);
    const byPart = new Map<string, number>();
    const modules: BundleSize['modules'] = [];
    for (const path of loaded)
      for (const [input, { bytesInOutput }] of Object.entries(result.metafile.outputs[path]!.inputs)) {
        byPart.set(partOf(input), (byPart.get(partOf(input)) ?? 0) + bytesInOutput);
        modules.push({ module: input.replace(/^(\.\.\/)+/, ''), minified: bytesInOutput });
      }
    modules.sort((a, b) => b.minified - a.minified);
    const parts = [...byPart]
      .map(([part, minified]) => ({ part, minified, gzipped: Math.round((gzipped * minified) / output.length) }))
      .sort((a, b) => b.minified - a.minified);
    const written = result.outputFiles!.filter((file) => file.path.endsWith('.js')).length;
    return {
      minified: output.length,
      gzipped,
      parts,
      modules: modules.slice(0, 40),
      chunks: { atLoad: atLoad.size, loaded: files.length, written },
      page,
    };
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
}

/** esbuild bundles the application in `app` into `app/out` as a page's bundler does. */
async function bundleApplication(app: string, from: 'package' | 'source', packageDir: string) {
  // The package as installed: its own name resolves through package.json's exports, with the browser conditions.
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(packageDir, join(app, 'node_modules', 'switchyard-llm'));
  writeFileSync(join(app, 'app.js'), APPLICATION);
  const result = await esbuild.build({
    entryPoints: [join(app, 'app.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // Split as an application's bundler does: what loads only when a feature first runs (a provider's adapter, the
    // dialects, the query builder, zod) is a chunk of its own, fetched then.
    splitting: true,
    outdir: join(app, 'out'),
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
    ...(from === 'source'
      ? {
          alias: { 'switchyard-llm': join(root, 'src/index.ts') },
          plugins: [webSeams, nodeOnlyPackages, jsonAsString],
        }
      : {}),
  });
  mkdirSync(join(app, 'out'));
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
  writeFileSync(join(app, 'out', 'package.json'), JSON.stringify({ type: 'module' }));
  return { result, atLoad: staticClosure(result.metafile, join(app, 'app.js')) };
}

/** The page: the bundle run by Node, every module it loads noted by a load hook. */
const PAGE = `import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load: (url, context, next) => (url.startsWith('file:') && loaded.push(url), next(url, context)) });
globalThis.providerEnv = JSON.parse(process.argv[2]);
// A browser has no \`process\`: hidden, the library takes the page for one (its fetch, not Node's pooled transport).
const nodeProcess = globalThis.process;
Object.defineProperty(globalThis, 'process', { value: undefined, configurable: true, writable: true });
await import('./app.js');
const user = [{ role: 'user', content: 'hi' }];
const texts = [];
for (const model of ['gpt-sol-latest', 'claude-sonnet-latest', 'gemini-flash-latest']) {
  const answer = await gateway.createCompletion({ model, messages: user });
  texts.push(answer.choices[0].message.content);
}
let streamed = '';
for await (const chunk of await gateway.createCompletion({ model: 'gpt-sol-latest', messages: user, stream: true }))
  streamed += chunk.choices[0]?.delta?.content ?? '';
texts.push(streamed);
await gateway.flush();
globalThis.process = nodeProcess;
const { written, failed, dropped } = gateway.recordStats;
const records = gateway.calls.records().length;
console.log(JSON.stringify({ texts, stats: { written, failed, dropped }, records, loaded }));
`;

async function runPage(out: string): Promise<BundleSize['page'] & { loaded: string[] }> {
  const fakes = await Promise.all([startFakeOpenAIServer(), startFakeAnthropicServer(), startFakeGeminiServer()]);
  try {
    const [openai, anthropic, gemini] = fakes;
    openai.enqueue({ content: 'Hi there' }, { content: 'Hi there' });
    anthropic.enqueue({ content: [{ type: 'text', text: 'Hi there' }] });
    gemini.enqueue({ text: 'Hi there' });
    const env = {
      OPENAI_API_KEY: 'sk-page',
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_API_KEY: 'sk-ant-page',
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: 'gemini-page',
      GEMINI_BASE_URL: gemini.url,
    };
    writeFileSync(join(out, 'page.js'), PAGE);
    const { stdout } = await promisify(execFile)(process.execPath, [join(out, 'page.js'), JSON.stringify(env)], {
      timeout: 30_000,
    });
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!);
    return { ...outcome, loaded: outcome.loaded.filter((url: string) => !url.endsWith('/page.js')) };
  } finally {
    await Promise.all(fakes.map((fake) => fake.close()));
  }
}

/** The output files loading the entry loads: the entry's, and those they import statically (not `import()`). */
function staticClosure(metafile: esbuild.Metafile, entry: string): Set<string> {
  const outputs = Object.entries(metafile.outputs);
  const start = outputs.find(([, output]) => output.entryPoint && resolve(root, output.entryPoint) === entry)![0];
  const loaded = new Set([start]);
  for (const path of loaded)
    for (const imported of metafile.outputs[path]!.imports)
      if (imported.kind === 'import-statement' && !imported.external) loaded.add(imported.path);
  return loaded;
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

export function formatBundleSize(size: BundleSize): string {
  const lines = size.parts.map((part) => `| ${part.part} | ${kB(part.minified)} | ${kB(part.gzipped)} |`);
  return [
    '| Part | Minified | Gzipped (share) |',
    '|---|---|---|',
    ...lines,
    `| **Total** | **${kB(size.minified)}** | **${kB(size.gzipped)}** |`,
  ].join('\n');
}

if (import.meta.main) {
  const built = await measureWebBundle('package');
  const { atLoad, loaded, written } = built.chunks;
  console.log(`The built package: ${kB(built.minified)} minified, ${kB(built.gzipped)} gzipped`);
  console.log(`${loaded} of ${written} chunks loaded (${atLoad} before the first call)\n`);
  const source = await measureWebBundle('source');
  console.log(formatBundleSize(source));
  console.log('\nThe largest modules (minified):');
  for (const { module, minified } of source.modules.slice(0, Number(process.argv[2] ?? 15)))
    console.log(`${kB(minified).padStart(9)}  ${module}`);
}
