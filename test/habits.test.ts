import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtInProviders } from '../src/providers/registry.ts';

/**
 * The house rules a reader relies on, checked on every run: short lines, files that do one job, and no provider
 * named in a branch outside its own folder (each provider owns its definitions).
 */
const root = fileURLToPath(new URL('..', import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(join(root, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const code = ['src', 'test', 'bench', 'examples'].flatMap(sources);

describe('house rules', () => {
  it('no line is longer than 120 characters', () => {
    const long = code.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, index) => (line.length > 120 ? [`${file}:${index + 1} (${line.length})`] : [])),
    );
    expect(long).toEqual([]);
  });

  it('no source file is longer than 300 lines', () => {
    const large = sources('src').flatMap((file) => {
      const lines = readFileSync(join(root, file), 'utf8').split('\n').length;
      return lines > 300 ? [`${file} (${lines})`] : [];
    });
    expect(large).toEqual([]);
  });

  // Tests wait on events (a gate, a close, a signal, `expect.poll` on the condition) or on an injected clock
  // (`retry.wait`, vitest's fake timers), not on a fixed sleep. The few left are slow providers the fakes play and
  // pauses that are the subject of their test. Counted as
  //   grep -rnE -e 'await (sleep|wait|pause|delay)\(' -e 'setTimeout\((resolve|done|r|res|next|wake)\b' \
  //     -e 'setTimeout\(\(\) => [A-Za-z.?]+\.(abort|destroy|end)\(' test | wc -l
  // (60 before issue 37; polls such as test/helpers/poll.ts are not fixed waits). Lower the bound as waits go.
  it('at most 12 fixed waits in test/', () => {
    const fixedWait = new RegExp(
      [
        String.raw`await (sleep|wait|pause|delay)\(`,
        String.raw`setTimeout\((resolve|done|r|res|next|wake)\b`,
        String.raw`setTimeout\(\(\) => [A-Za-z.?]+\.(abort|destroy|end)\(`,
      ].join('|'),
    );
    const waits = sources('test').flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, index) => (fixedWait.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(waits.length, waits.join('\n')).toBeLessThanOrEqual(12);
  });

  it('no provider is named in a branch outside its folder', () => {
    const names = [...builtInProviders.map((provider) => provider.id), 'mock', 'bedrock', 'vertex'];
    const branch = new RegExp(`(===|!==|case)\\s*'(${names.join('|')})'`);
    const found = sources('src')
      .filter((file) => !file.startsWith('src/providers/'))
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (branch.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(found).toEqual([]);
  });
});
