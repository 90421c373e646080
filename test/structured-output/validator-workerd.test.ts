import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * The interpreter where code generation is really forbidden: the validator bundled for the web (esbuild, browser
 * platform, `ajv-loader.ts` swapped for `ajv-loader.web.ts` as the web build does) and run by workerd (Miniflare)
 * without nodejs_compat. Needs esbuild and miniflare where the runtimes are installed (`SWITCHYARD_RUNTIMES`, the
 * directory holding their node_modules, as test/runtimes/run.ts reads it; by default /tmp/rt); skipped elsewhere.
 */
const runtimes = `${process.env.SWITCHYARD_RUNTIMES ?? '/tmp/rt'}/node_modules`;
const present = existsSync(`${runtimes}/miniflare`) && existsSync(`${runtimes}/esbuild`);
if (!present) console.warn(`SKIPPED: the validator in workerd (no miniflare/esbuild under ${runtimes}).`);

it.skipIf(!present)(
  'validates, words its errors and refuses bad schemas in workerd, with no ajv bundled',
  async () => {
    const esbuild = await import(`${runtimes}/esbuild/lib/main.js`);
    const { Miniflare } = await import(`${runtimes}/miniflare/dist/src/index.js`);
    const webSeams = {
      name: 'web-seams',
      setup(build: any) {
        build.onResolve({ filter: /ajv-loader\.ts$/ }, (args: any) => ({
          path: fileURLToPath(new URL(args.path.replace(/\.ts$/, '.web.ts'), `file://${args.resolveDir}/`)),
        }));
      },
    };
    const built = await esbuild.build({
      entryPoints: [fileURLToPath(new URL('./validator-worker.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      write: false,
      metafile: true,
      plugins: [webSeams],
    });
    const bundled = Object.keys(built.metafile.inputs);
    // No ajv code: of ajv's package, only the drafts' meta-schemas (JSON data), which the interpreter loads with
    // `import()` when a schema refers to one (a chunk of its own in the web build; inlined by this unsplit bundle).
    const ajvCode = bundled.filter(
      (input) => /node_modules\/ajv/.test(input) && !/\/dist\/refs\/.*\.json$/.test(input),
    );
    expect(ajvCode).toEqual([]);
    expect(bundled.some((input) => input.includes('@cfworker/json-schema'))).toBe(true);
    const worker = new Miniflare({ modules: true, script: built.outputFiles[0].text, compatibilityDate: '2025-01-01' });
    try {
      const answer = await (await worker.dispatchFetch('http://worker/')).json();
      expect(answer).toEqual({
        codeGeneration: false,
        valid: true,
        invalid: false,
        errors: [
          '/name must be string',
          '/email must match format "email"',
          '/tags/0 must be string',
          '(root) must NOT have additional properties ("extra")',
        ],
        refused: expect.stringContaining('"#/$defs/missing", which is not in the schema'),
        metaSchema: [true, false],
      });
    } finally {
      await worker.dispose();
    }
  },
  120_000,
);
