import { defineConfig, type Options } from 'tsup';
import { jsonAsString, META_SCHEMA_FILES, webBuild } from './tsup.web.ts';

/** Characters after which esbuild breaks a line of the minified build (at the next place it may). */
const LINE_LIMIT = 160;

/** The package's entry points, one per `exports` path of package.json (`.` is `index`), each with its declarations. */
export const ENTRY_POINTS = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  server: 'src/server/index.ts',
  stores: 'src/entries/stores.ts',
  records: 'src/entries/records.ts',
  providers: 'src/entries/providers.ts',
};

const nodeBuild: Options = {
  entry: { ...ENTRY_POINTS, cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: ENTRY_POINTS },
  target: 'node22',
  // import.meta.url in the CommonJS build, for lazyRequire's createRequire.
  shims: true,
  platform: 'node',
  splitting: true,
  sourcemap: true,
  // dist/web is the web build's (built beside this one, and cleaned by it).
  clean: ['!web/**'],
  esbuildPlugins: [jsonAsString],
  // The ESM build is minified for whitespace and syntax only (names stay, for stack traces; the source maps map
  // back): V8 parses less at import, 87 → 74 ms for the package (medians of 15, alternating). Not the CommonJS build:
  // tsup's CommonJS rewrite of `await x ?? y` breaks on minified code (`returnawait`). SWITCHYARD_READABLE_BUILD=1
  // leaves both as written, for CPU profiles whose frames name lines (bench/profile-server.ts).
  // Its lines are cut near LINE_LIMIT characters: Node prints the source line an uncaught error was thrown on, and a
  // whole chunk on one line was 53 KB of code before the message (issue 35).
  esbuildOptions(options, { format }) {
    const minify = format === 'esm' && !process.env.SWITCHYARD_READABLE_BUILD;
    options.minifyWhitespace = minify;
    options.minifySyntax = minify;
    if (minify) options.lineLimit = LINE_LIMIT;
  },
  // Provider SDKs stay external and are imported lazily by their adapters. tsup leaves out only `dependencies` and
  // `peerDependencies` by itself: the optional cloud SDKs must be named, or they would be bundled.
  noExternal: [META_SCHEMA_FILES],
  external: [
    'openai',
    '@anthropic-ai/sdk',
    '@google/genai',
    '@anthropic-ai/vertex-sdk',
    '@aws-sdk/client-bedrock-runtime',
    'google-auth-library',
  ],
};

/** The entry points a Worker or a page can load (the server and the test hooks are Node's only). */
const { testing: _testing, server: _server, ...WEB_ENTRY_POINTS } = ENTRY_POINTS;

export default defineConfig([nodeBuild, webBuild(WEB_ENTRY_POINTS)]);
