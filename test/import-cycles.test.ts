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
