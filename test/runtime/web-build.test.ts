import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedPackage } from '../helpers/built-package.ts';
import { walkModuleGraph } from './module-graph.ts';
import { formatBundleSize, measureWebBundle } from './web-bundle.ts';

/**
 * Issue 38: the main entry bundles for Workers and browsers. The built package's graphs are walked as a bundler walks
 * them: the Node build's static imports from dist/index.js (what loading the package runs: Node-only parts are
 * fetched when a feature needs them), and the web build's static and dynamic imports from dist/web/index.js (what a
 * bundler for a Worker or a page takes in). Neither may import a Node built-in; the web build takes in no provider
 * SDK, no undici, no ajv. And a browser bundle of createGateway + createCompletion fits the budget.
 */
let built: string;
beforeAll(async () => {
  built = await sharedPackage();
}, 180_000);

/** Packages that need Node.js or code generation, or weigh megabytes: never in the web build. */
const NOT_IN_THE_WEB_BUILD =
  /node_modules\/(openai|@anthropic-ai|@google|@aws-sdk|@smithy|google-auth-library|undici|ajv|pg|ioredis)\//;

describe('the module graphs of the built package', () => {
  it('dist/index.js imports no Node built-in, in itself or its dependencies (static imports)', async () => {
    const graph = await walkModuleGraph(join(built, 'dist/index.js'), {
      platform: 'node',
      conditions: ['node', 'import'],
      dynamic: false,
      base: built,
    });
    expect(graph.files.length).toBeGreaterThan(10);
    expect(graph.builtins).toEqual([]);
  });

  it('the web build imports no Node built-in, no provider SDK and no undici, statically or dynamically', async () => {
    const graph = await walkModuleGraph(join(built, 'dist/web/index.js'), {
      platform: 'browser',
      conditions: ['browser', 'import'],
      dynamic: true,
      base: built,
    });
    expect(graph.files.some((file) => file.includes('node_modules/zod/'))).toBe(true);
    expect(graph.builtins).toEqual([]);
    expect(graph.files.filter((file) => NOT_IN_THE_WEB_BUILD.test(file))).toEqual([]);
  });
});

describe('the browser bundle', () => {
  // Issue 38's target. The size is every chunk the page loads to make its calls: the entry's, and those its calls
  // import (each provider's adapter, on its first call). The query builder (Kysely) and zod are chunks of their own,
  // loaded when a stored thing is first queried or input first checked, which a page that only calls never does
  // (docs/performance.md, "In the browser").
  it('a page that calls OpenAI, Anthropic and Gemini through a gateway loads at most 150 kB gzipped', async () => {
    const size = await measureWebBundle('package', built);
    const { atLoad, loaded, written } = size.chunks;
    console.log(
      `browser bundle: ${size.minified} bytes minified, ${size.gzipped} gzipped, ${loaded} of ${written} chunks ` +
        `loaded (${atLoad} before the first call)\n${formatBundleSize(size)}`,
    );
    expect(size.page.texts).toEqual(['Hi there', 'Hi there', 'Hi there', 'Hi there']);
    expect(size.page.stats).toEqual({ written: 4, failed: 0, dropped: 0 });
    expect(size.page.records).toBe(4);
    // The calls loaded chunks beyond the entry's (the adapters), and not every chunk (never Kysely's or zod's).
    expect(loaded).toBeGreaterThan(atLoad);
    expect(loaded).toBeLessThan(written);
    expect(size.parts.map((part) => part.part)).not.toContain('kysely');
    expect(size.gzipped).toBeLessThanOrEqual(150_000);
  }, 90_000);
});
