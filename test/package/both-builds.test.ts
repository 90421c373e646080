import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchyardError } from '../../src/index.ts';
import { buildPackage } from '../helpers/built-package.ts';

/**
 * The package as tsup builds it, ESM and CommonJS, installed by name in an application's node_modules: every entry
 * point of package.json loads both ways with the names of its source. And issue 37: `instanceof SwitchyardError` is
 * false for an error of the other build when an application loads both (a dependency `require`s the package, the
 * application `import`s it), each build having its own classes; `SwitchyardError.is` reads a brand both share.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const work = join(root, '.docs-run', `both-builds-${process.pid}`);
const built = join(work, 'package');
const app = join(work, 'app');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { 'switchyard-source': string }>;
};

beforeAll(async () => {
  await buildPackage(built, ['esm', 'cjs']);
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
  symlinkSync(built, join(app, 'node_modules', 'switchyard-llm'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `program` as a module of the application; what it printed last, parsed. */
async function runInApp(program: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(node, ['--input-type=module', '-e', program], { cwd: app });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('every entry point of the built package', () => {
  it('loads by its name with import and with require, holding the names of its source', async () => {
    const entries = Object.entries(manifest.exports).flatMap(([path, entry]) =>
      typeof entry === 'string' ? [] : [{ path, source: entry['switchyard-source'] }],
    );
    expect(entries.map(({ path }) => path)).toEqual([
      '.',
      './testing',
      './server',
      './stores',
      './records',
      './providers',
    ]);
    const specifiers = entries.map(({ path }) => `switchyard-llm${path.slice(1)}`);
    const seen = await runInApp(`
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const names = {};
      for (const specifier of ${JSON.stringify(specifiers)}) {
        const esm = Object.keys(await import(specifier)).sort();
        const cjs = Object.keys(require(specifier)).filter((name) => name !== '__esModule').sort();
        names[specifier] = { esm, cjs };
      }
      console.log(JSON.stringify(names));`);
    for (const [index, { source }] of entries.entries()) {
      const expected = Object.keys(await import(join(root, source))).sort();
      expect(seen[specifiers[index]!], specifiers[index]).toEqual({ esm: expected, cjs: expected });
    }
  }, 60_000);
});

/** Runs `body` with `esm` and `cjs`, the two builds' main entries, and returns what it printed last, parsed. */
async function withBothBuilds(body: string): Promise<Record<string, unknown>> {
  const program = `
    import { createRequire } from 'node:module';
    const esm = await import('switchyard-llm');
    const cjs = createRequire(import.meta.url)('switchyard-llm');
    const failure = (api) =>
      api.createGateway({ mock: true, env: {} })
        .createCompletion({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
        .catch((error) => error);
    ${body}`;
  return runInApp(program);
}

describe('SwitchyardError.is with the ESM and the CommonJS build loaded together', () => {
  it('is true both ways for an error one build threw, where instanceof is false', async () => {
    const seen = await withBothBuilds(`
      const fromEsm = await failure(esm);
      const fromCjs = await failure(cjs);
      console.log(JSON.stringify({
        names: [fromEsm.name, fromCjs.name],
        instanceofAcross: [fromCjs instanceof esm.SwitchyardError, fromEsm instanceof cjs.SwitchyardError],
        instanceofSame: [fromEsm instanceof esm.SwitchyardError, fromCjs instanceof cjs.SwitchyardError],
        isAcross: [esm.SwitchyardError.is(fromCjs), cjs.SwitchyardError.is(fromEsm)],
        kindAcross: [esm.ModelNotFoundError.is(fromCjs), cjs.ModelNotFoundError.is(fromEsm)],
        otherKind: [esm.RateLimitError.is(fromCjs), cjs.InvalidRequestError.is(fromEsm)],
        codes: [fromEsm.code, fromCjs.code],
      }));`);
    expect(seen).toEqual({
      names: ['ModelNotFoundError', 'ModelNotFoundError'],
      instanceofAcross: [false, false],
      instanceofSame: [true, true],
      isAcross: [true, true],
      kindAcross: [true, true],
      otherKind: [false, false],
      codes: ['model_not_found', 'model_not_found'],
    });
  });

  it('every exported error class: is() answers across builds exactly as instanceof does within one', async () => {
    // An instance of each class without running its constructor (they take different arguments): its prototype
    // chain is what `is` reads.
    const seen = await withBothBuilds(`
      const classes = Object.keys(esm).filter((name) =>
        typeof esm[name] === 'function' &&
          (esm[name] === esm.SwitchyardError || esm[name].prototype instanceof esm.SwitchyardError));
      const mismatches = [];
      for (const made of classes)
        for (const asked of classes) {
          const sameBuild = Object.create(esm[made].prototype) instanceof esm[asked];
          const across = [
            cjs[asked].is(Object.create(esm[made].prototype)),
            esm[asked].is(Object.create(cjs[made].prototype)),
          ];
          if (across.some((answer) => answer !== sameBuild)) mismatches.push({ made, asked, sameBuild, across });
        }
      const outsiders = [null, undefined, 'SwitchyardError', {}, new Error('plain'), Object.create(null)];
      console.log(JSON.stringify({
        classes: classes.length,
        mismatches,
        outsiders: outsiders.map((value) => esm.SwitchyardError.is(value) || cjs.ProviderError.is(value)),
      }));`);
    expect(seen.mismatches).toEqual([]);
    // The 17 of src/errors.ts, the 4 of the deployments and the 2 of the guardrails.
    expect(seen.classes).toBe(23);
    expect(seen.outsiders).toEqual([false, false, false, false, false, false]);
  });
});

describe('SwitchyardError.is within one copy of the package', () => {
  it('a class written outside the package: its own is() is instanceof, and SwitchyardError.is holds for it', () => {
    class QuotaError extends SwitchyardError {
      constructor() {
        super('over quota', { status: 429, type: 'rate_limit_error', code: 'quota' });
      }
    }
    const error = new QuotaError();
    expect([SwitchyardError.is(error), QuotaError.is(error)]).toEqual([true, true]);
    expect(QuotaError.is(new SwitchyardError('other', { status: 400, type: 'invalid_request_error' }))).toBe(false);
  });
});
