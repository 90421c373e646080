import { existsSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * JSON data (the model catalog) as one string given to `JSON.parse`: V8 scans a string literal far faster than it
 * compiles the same data as an object literal (esbuild's default), which took ~10 ms of the package's import.
 */
export const jsonAsString: Plugin = {
  name: 'json-as-string',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, async ({ path }) => ({
      contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(await readFile(path, 'utf8'))))});`,
      loader: 'js',
    }));
  },
};

/**
 * The web build (issue 38): dist/web/, what the `workerd`, `worker` and `browser` export conditions load. Node.js is
 * absent there, so each source file with a `<name>.web.ts` beside it is replaced by that file (the seams: the
 * transport, the JSON Schema validator, the lazily required modules, the SDK loader), and the provider SDKs and
 * Node's HTTP client are left out. The test test/runtime/web-build.test.ts walks what it imports.
 */
export const webSeams: Plugin = {
  name: 'web-seams',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, ({ path, importer }) => {
      const source = resolve(dirname(importer), path);
      const web = source.replace(/\.ts$/, '.web.ts');
      // A seam's web file may name its Node counterpart (types, shared code): that import is left alone.
      if (web === importer || !existsSync(web)) return undefined;
      return { path: web };
    });
  },
};

/**
 * Packages the web build leaves out: those that run on Node.js only, imported by the core behind its seams (the SDK
 * transport, undici's pool), and yaml, read only by the deployments directory (which needs a file system). In the
 * web build each is a module that fails when loaded, so a bundler for a Worker or a page never sees them.
 */
export const NODE_ONLY_PACKAGES = [
  'openai',
  '@anthropic-ai/sdk',
  '@google/genai',
  '@anthropic-ai/vertex-sdk',
  '@aws-sdk/client-bedrock-runtime',
  'google-auth-library',
  'undici',
  'yaml',
];

/**
 * The drafts' meta-schemas (JSON data in ajv's package) that the interpreter loads with `import()` when a schema
 * refers to one (src/structured-output/meta-schema-data.ts): bundled, in a chunk of their own, so neither build
 * imports ajv for them (the web build has no ajv at all).
 */
export const META_SCHEMA_FILES = /^ajv(-draft-04)?\/dist\/refs\/.*\.json$/;

export const nodeOnlyPackages: Plugin = {
  name: 'node-only-packages',
  setup(build) {
    const names = NODE_ONLY_PACKAGES.map((name) => name.replace(/[/.]/g, '\\$&')).join('|');
    build.onResolve({ filter: new RegExp(`^(${names})(/.*)?$`) }, ({ path }) => ({
      path,
      namespace: 'node-only',
    }));
    build.onLoad({ filter: /.*/, namespace: 'node-only' }, ({ path }) => ({
      contents: `throw new Error(${JSON.stringify(`${path} is not part of switchyard-llm's web build (Workers, browsers).`)});`,
      loader: 'js',
    }));
  },
};

export function webBuild(entry: Record<string, string>): Options {
  return {
    name: 'web',
    entry,
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    splitting: true,
    sourcemap: true,
    dts: false,
    // In web/ of the build's directory (dist, or where `--out-dir` says, which tsup gives every configuration), emptied
    // first: tsup's own `clean` would empty the whole directory, which the Node build writes at the same time.
    esbuildOptions(options) {
      options.outdir = join(options.outdir ?? 'dist', 'web');
      rmSync(options.outdir, { recursive: true, force: true });
    },
    minifyWhitespace: true,
    minifySyntax: true,
    esbuildPlugins: [webSeams, nodeOnlyPackages, jsonAsString],
    // tsup leaves `dependencies` to the application's bundler; those the web build leaves out are its own stubs.
    noExternal: [...NODE_ONLY_PACKAGES, META_SCHEMA_FILES],
  };
}
