import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * Issue 35, item 9, the fast half: a strict consumer (`strict`, `skipLibCheck: false`, `nodenext`, without
 * exactOptionalPropertyTypes) type-checks test/consumer/consumer.mts against the package's declarations with no error,
 * and they need no `@types` package beside `@types/node` (a consumer has no `@types/pg`). The declarations are tsc's
 * of the sources, laid out as an installed package inside this checkout, so that their imports find its
 * node_modules. .ci/run does the same against the built, packed and installed package, with and without
 * exactOptionalPropertyTypes, for the ESM and CommonJS entry points; the project's own type check compiles
 * consumer.mts with exactOptionalPropertyTypes against the sources. The declarations are emitted without checking the
 * sources a second time (`noCheck`: the type check does; declaration-emit errors are still reported).
 *
 * Both tsc runs are incremental, like `npm run typecheck`: their build info and output stay in
 * node_modules/.cache/switchyard/consumer-types, so a rerun re-emits and re-checks what changed (~14 s of CPU
 * instead of ~35 when nothing did). Errors are reported on every run: tsc keeps each file's diagnostics in its build
 * info.
 */
const root = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { 'switchyard-source': string }>;
};
const tsc = (...args: string[]) =>
  promisify(execFile)(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? '',
  }));

/** Inside the checkout, so that the declarations' imports resolve from its node_modules. */
const dir = join(root, 'node_modules/.cache/switchyard/consumer-types');

describe('a strict TypeScript consumer', () => {
  it('type-checks against every entry point with no error and no @types beside node', async () => {
    const installed = join(dir, 'node_modules/switchyard-llm');
    mkdirSync(installed, { recursive: true });
    const incremental = ['--incremental', '--tsBuildInfoFile', join(dir, 'declarations.tsbuildinfo')];
    const emitted = await tsc('-p', 'test/consumer/tsconfig.declarations.json', '--outDir', installed, ...incremental);
    expect(emitted.stdout + emitted.stderr, 'the declarations of the sources').toBe('');
    removeDeclarationsOfRemovedSources(installed);
    // Every entry point of package.json, at the declarations tsc wrote for its source.
    const declared = (source: string) => ({ types: source.replace(/^\.\/src\//, './').replace(/\.ts$/, '.d.ts') });
    const exports = Object.fromEntries(
      Object.entries(manifest.exports).flatMap(([path, entry]) =>
        typeof entry === 'string' ? [] : [[path, declared(entry['switchyard-source'])]],
      ),
    );
    expect(Object.keys(exports)).toEqual(['.', './testing', './server', './stores', './records', './providers']);
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'switchyard-llm', type: 'module', exports }));
    copyFileSync(join(root, 'test/consumer/consumer.mts'), join(dir, 'consumer.mts'));
    // A package of its own: inside the checkout, the checkout's package.json (also named switchyard-llm) would
    // resolve the consumer's imports to itself, its dist/, instead of the installed declarations.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    const compilerOptions = {
      strict: true,
      skipLibCheck: false,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2023',
      types: ['node'],
      noEmit: true,
      incremental: true,
      tsBuildInfoFile: './check.tsbuildinfo',
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
    const { stdout, stderr } = await tsc('-p', dir, '--listFiles');
    const lines = (stdout + stderr).split('\n');
    expect.soft(lines.filter((line) => line.includes('error TS'))).toEqual([]);
    // The package's own declarations are the ones just written, not a build lying in the checkout (dist/).
    const ownDeclarations = lines.filter(
      (line) => line.includes('/switchyard-llm/') || line.startsWith(join(root, 'dist')),
    );
    expect(ownDeclarations).toContain(join(installed, 'index.d.ts'));
    expect(ownDeclarations.filter((line) => !line.startsWith(installed))).toEqual([]);
    const typePackages = lines.flatMap((line) => /\/node_modules\/@types\/([^/]+)\//.exec(line)?.[1] ?? []);
    expect([...new Set(typePackages)]).toEqual(['node']);
  }, 600_000);
});

/** An incremental emit leaves the declarations of a source removed since the last run: removed here. */
function removeDeclarationsOfRemovedSources(installed: string): void {
  for (const entry of readdirSync(installed, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const declaration = join(entry.parentPath, entry.name);
    const source = join(root, 'src', relative(installed, declaration).replace(/\.d\.ts$/, '.ts'));
    if (!existsSync(source)) rmSync(declaration);
  }
}
