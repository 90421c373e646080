import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No runtime import cycle in src/: a module in a cycle can be read before it has finished loading (a constant still
 * undefined, a class not yet declared), depending on which file happened to be imported first. Type-only imports are
 * erased and do not count; `import { type A }` does (under `verbatimModuleSyntax` it stays as `import {} from`).
 * Dynamic `import()` is not followed: it runs after every module has loaded.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

/** Static `import … from`, `export … from` and bare `import '…'`, with `type` captured when the whole line is. */
const STATEMENT = /^\s*(?:import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?'([^']+)'/gm;

/** The relative modules each file loads at runtime, by path from the repository root. */
function runtimeImports(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const targets = [...text.matchAll(STATEMENT)]
      .filter(([, typeOnly, specifier]) => !typeOnly && specifier!.startsWith('.'))
      .map(([, , specifier]) => relative(root, resolve(root, dirname(file), specifier!)));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one importing itself (Tarjan). */
function cycles(graph: ReadonlyMap<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, order.size);
    low.set(node, order.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) !== order.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

function sourceTree(): Map<string, string> {
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
  return new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
}

describe('import cycles', () => {
  it('no module in src/ imports itself back at runtime', () => {
    const graph = runtimeImports(sourceTree());
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => target.endsWith('.ts') && !graph.has(target)).map((target) => `${file} → ${target}`),
    );
    expect(unresolved).toEqual([]);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle through a multi-line import and a re-export, and ignores type-only ones', () => {
    const sources = new Map([
      ['src/a.ts', "import {\n  b,\n  type B,\n} from './b.ts';\nimport type { C } from './c.ts';\n"],
      ['src/b.ts', "export { c } from './c.ts';\n"],
      ['src/c.ts', "import { type A } from './a.ts';\nexport type { B } from './b.ts';\n"],
      ['src/d.ts', "import type { A } from './a.ts';\nexport type { D } from './d.ts';\n"],
    ]);
    expect(cycles(runtimeImports(sources))).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});

/**
 * The floors of src/, lowest first: a file imports (at runtime or for a type) only its own folder (or file) and what
 * stands on a lower floor. Rooms that share a floor do not import each other either.
 */
const FLOORS: ReadonlyArray<readonly string[]> = [
  // The effort scale and the errors' brand; then the request and response types, which stand on the scale; then the
  // errors, which carry attempts.
  ['src/reasoning.ts', 'src/error-brand.ts'],
  ['src/types.ts'],
  ['src/errors.ts'],
  ['src/internal/', 'src/guardrails/'],
  // The storage engines (memory, SQLite, PostgreSQL) and the table declarations every store is written over.
  ['src/storage/', 'src/templates.ts'],
  // JSON schemas; the catalog of model facts.
  ['src/structured-output/', 'src/catalog/'],
  // The parameter table and the request checks: read by providers, deployments, dialects and the pipeline.
  ['src/request/'],
  ['src/providers/', 'src/deployments/'],
  ['src/records/', 'src/testing/'],
  ['src/access/', 'src/annotations/'],
  // The pipeline. It declares the stages that features implement (`src/completion/stages.ts`) and imports none.
  ['src/completion/'],
  ['src/cache/', 'src/budgets/', 'src/dialects/', 'src/embeddings/', 'src/media/'],
  ['src/experiments/'],
  // The one factory of the stores of a database: records, annotations, experiments, deployments, cache.
  ['src/stores/'],
  ['src/gateway-api.ts'],
  ['src/gateway.ts'],
  ['src/server/', 'src/default-gateway.ts'],
  ['src/cli/', 'src/index.ts', 'src/entries/'],
  ['src/cli.ts'],
];

/** The imports that still run up, each with why (none: one factory opens every store, issue 37). */
const UPWARD_FOR_NOW: readonly string[] = [];

/** Every import of a file of `sources`, type-only ones too, that does not point down `floors`; and unplaced files. */
function againstTheFloors(sources: ReadonlyMap<string, string>, floors: ReadonlyArray<readonly string[]>): string[] {
  const roomOf = (file: string) =>
    floors.flat().find((room) => (room.endsWith('/') ? file.startsWith(room) : file === room));
  const floorOf = (room: string) => floors.findIndex((rooms) => rooms.includes(room));
  const found: string[] = [];
  for (const [file, text] of sources) {
    const room = roomOf(file);
    if (room === undefined) {
      found.push(`${file} stands on no floor`);
      continue;
    }
    for (const [, , specifier] of text.matchAll(STATEMENT)) {
      if (!specifier!.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(file), specifier!));
      const targetRoom = roomOf(target);
      if (targetRoom === undefined || targetRoom === room) continue;
      if (floorOf(targetRoom) >= floorOf(room)) found.push(`${file} → ${target}`);
    }
  }
  return found;
}

describe('the floors of src/', () => {
  it('every import points down, but for the listed few', () => {
    const found = againstTheFloors(sourceTree(), FLOORS);
    expect(found.filter((arrow) => !UPWARD_FOR_NOW.includes(arrow))).toEqual([]);
    // An allowance no longer used is struck from the list.
    expect(UPWARD_FOR_NOW.filter((arrow) => !found.includes(arrow))).toEqual([]);
  });

  it('finds an import up, one between rooms of a floor, a type-only one, and a file on no floor', () => {
    const sources = new Map([
      ['src/low/a.ts', "import type { B } from '../high.ts';\nimport { a2 } from './a2.ts';\n"],
      ['src/low/a2.ts', "import { side } from '../side.ts';\n"],
      ['src/side.ts', "import { a } from './low/a.ts';\n"],
      ['src/high.ts', "import { a } from './low/a.ts';\nimport { x } from 'node:fs';\n"],
      ['src/stray.ts', ''],
    ]);
    expect(againstTheFloors(sources, [['src/low/', 'src/side.ts'], ['src/high.ts']])).toEqual([
      'src/low/a.ts → src/high.ts',
      'src/low/a2.ts → src/side.ts',
      'src/side.ts → src/low/a.ts',
      'src/stray.ts stands on no floor',
    ]);
  });
});

describe('the key rules (src/access/)', () => {
  it('sit below everything that asks them: they import no layer that calls them, not even for a type', () => {
    const callers = /^src\/(server|completion|experiments|annotations|deployments|dialects|embeddings|budgets|cache)\//;
    const upward = [...sourceTree()]
      .filter(([file]) => file.startsWith('src/access/'))
      .flatMap(([file, text]) =>
        [...text.matchAll(STATEMENT)]
          .map(([, , specifier]) => relative(root, resolve(root, dirname(file), specifier!)))
          .filter((target) => callers.test(target) || target === 'src/gateway.ts')
          .map((target) => `${file} → ${target}`),
      );
    expect(sourceTree().has('src/access/reads.ts')).toBe(true);
    expect(upward).toEqual([]);
  });
});
