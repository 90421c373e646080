/**
 * What a browser bundle of the library weighs (issue 38, item 7): esbuild bundles an application that makes a
 * gateway and calls `createCompletion` (OpenAI, Anthropic and Gemini are built in), minified, for the browser, from
 * the package's web build as a bundler resolves it; the metafile tells each part's cost. Run directly
 * (`node test/runtime/web-bundle.ts`, after `npm run build`) it prints the table docs/performance.md quotes.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { jsonAsString, nodeOnlyPackages, webSeams } from '../../tsup.web.ts';

const root = resolve(import.meta.dirname, '../..');

/** The application: what the budget is for. */
const APPLICATION = `import { createGateway, createCompletion } from 'switchyard-llm';
const gateway = createGateway({ env: { OPENAI_API_KEY: 'k' } });
globalThis.run = (request) => gateway.createCompletion(request);
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
 * totals differ by what splitting the build into chunks costs).
 */
export async function measureWebBundle(from: 'package' | 'source', packageDir = root): Promise<BundleSize> {
  const app = mkdtempSync(join(tmpdir(), 'switchyard-web-bundle-'));
  try {
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
      // Split as an application's bundler does: what loads only on a later call (the dialects) is a chunk of its own,
      // fetched then; the size is what loading the application costs, the entry and the chunks it imports statically.
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
    const loaded = staticClosure(result.metafile, join(app, 'app.js'));
    const files = result.outputFiles.filter((file) => loaded.has(relative(root, file.path)));
    const output = Buffer.concat(files.map((file) => file.contents));
    const gzipped = files.reduce((total, file) => total + gzipSync(file.contents, { level: 9 }).length, 0);
    const byPart = new Map<string, number>();
    for (const path of loaded)
      for (const [input, { bytesInOutput }] of Object.entries(result.metafile.outputs[path]!.inputs))
        byPart.set(partOf(input), (byPart.get(partOf(input)) ?? 0) + bytesInOutput);
    const parts = [...byPart]
      .map(([part, minified]) => ({ part, minified, gzipped: Math.round((gzipped * minified) / output.length) }))
      .sort((a, b) => b.minified - a.minified);
    return { minified: output.length, gzipped, parts };
  } finally {
    rmSync(app, { recursive: true, force: true });
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
  console.log(`The built package: ${kB(built.minified)} minified, ${kB(built.gzipped)} gzipped\n`);
  console.log(formatBundleSize(await measureWebBundle('source')));
}
