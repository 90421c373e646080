import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS } from '../../tsup.config.ts';

/**
 * Issue 37: the main entry is for callers (at most 120 names, types included); store classes, provider authoring
 * and the records' shapes are on subpaths. Names are counted as a consumer's TypeScript sees them: the exports of
 * each entry's module, values and types alike.
 */
const root = resolve(import.meta.dirname, '../..');
const MAIN_ENTRY_LIMIT = 120;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { 'switchyard-source': string; import: { default: string } }>;
};
const entries = Object.entries(manifest.exports).flatMap(([path, entry]) =>
  typeof entry === 'string' ? [] : [{ path, source: entry['switchyard-source'], built: entry.import.default }],
);

/** The names each source file exports, by file. */
function exportedNames(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(
    files.map((file) => join(root, file)),
    {
      allowImportingTsExtensions: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    },
  );
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file))!)!;
      return [file, checker.getExportsOfModule(module).map((symbol) => symbol.name)];
    }),
  );
}

const names = exportedNames(entries.map(({ source }) => source.replace(/^\.\//, '')));

describe('the entry points', () => {
  it(`the main entry exports at most ${MAIN_ENTRY_LIMIT} names, types included`, () => {
    const main = names.get('src/index.ts')!;
    expect(main).toContain('createGateway');
    expect(main.length).toBeLessThanOrEqual(MAIN_ENTRY_LIMIT);
  });

  it('each name is on one entry point only', () => {
    const where = new Map<string, string[]>();
    for (const [file, exported] of names)
      for (const name of exported) where.set(name, [...(where.get(name) ?? []), file]);
    expect([...where].filter(([, files]) => files.length > 1)).toEqual([]);
  });

  it('no store or sink class on the main entry (their interfaces DeploymentStore and CallStore are)', () => {
    const classes = names.get('src/index.ts')!.filter((name) => /^[A-Z]\w*(Store|Sink|Journal)$/.test(name));
    expect(classes.sort()).toEqual(['CallStore', 'DeploymentStore']);
  });

  it('package.json exports, the build and the consumer type check name the same entry points', () => {
    const built = Object.fromEntries(
      Object.entries(ENTRY_POINTS).map(([name, source]) => [`./dist/${name}.js`, `./${source}`]),
    );
    expect(Object.fromEntries(entries.map(({ built: file, source }) => [file, source]))).toEqual(built);
    const declarations = JSON.parse(readFileSync(join(root, 'test/consumer/tsconfig.declarations.json'), 'utf8')) as {
      files: string[];
    };
    expect(declarations.files.map((file) => file.replace('../../', './'))).toEqual(entries.map(({ source }) => source));
  });
});
