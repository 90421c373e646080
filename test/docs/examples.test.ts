import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocsWorld, root, startDocsWorld } from './docs-world.ts';
import { type CodeBlock, codeBlocks, kindOf } from './markdown-blocks.ts';
import { type BlockResult, type Runnable, runBlock, runDir } from './run-block.ts';

/**
 * Every code block of README.md and docs/*.md runs as written, or says it is a fragment (CONTRIBUTING.md, "Examples
 * in the docs"); examples/*.ts run too. TypeScript runs on Node 24 against the package by its name, shell blocks
 * against the CLI and a `serve --mock` this test starts, every provider a fake on loopback.
 */
const markdown = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter((name) =>
  name.endsWith('.md'),
);
const blocks = markdown.flatMap((name) => codeBlocks(join(root, name), name));
const examples: Runnable[] = readdirSync(join(root, 'examples'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({
    file: `examples/${name}`,
    line: 1,
    lang: 'ts',
    fragment: false,
    walkthrough: false,
    writeTo: undefined,
    code: '',
    source: join(root, 'examples', name),
  }));
const runnable: Runnable[] = [...blocks.filter((block) => ['run', 'data'].includes(kindOf(block))), ...examples];

let world: DocsWorld;
const results = new Map<Runnable, BlockResult>();

beforeAll(async () => {
  world = await startDocsWorld(blocks);
  // Two at a time: the machine has two cores, and each block is a process of its own.
  const queue = [...runnable];
  const worker = async () => {
    for (let block = queue.shift(); block; block = queue.shift()) results.set(block, await runBlock(block, world));
  };
  await Promise.all([worker(), worker()]);
}, 300_000);

afterAll(async () => {
  await world?.close();
  rmSync(runDir, { recursive: true, force: true });
  try {
    rmdirSync(join(root, '.docs-run')); // unless another run is using it
  } catch {}
});

const where = (block: CodeBlock) => `${block.file}:${block.line}`;

describe('documented examples', () => {
  it('every fence names its language (text for output), so none is left unchecked by accident', () => {
    const unnamed = blocks.filter((block) => kindOf(block) === 'unknown').map(where);
    expect(unnamed, 'fences without a known language').toEqual([]);
  });

  for (const block of runnable) {
    it(`${where(block)} (${block.lang}) runs`, () => {
      const result = results.get(block);
      expect(result, `${where(block)} was not run`).toBeDefined();
      expect(result!.ok, `${where(block)} failed: ${result!.detail}`).toBe(true);
    });
  }
});

describe('the docs test itself', () => {
  const probe = (lang: string, code: string): Runnable => ({
    file: 'probe.md',
    line: 1,
    lang,
    fragment: false,
    walkthrough: false,
    writeTo: undefined,
    code,
  });

  it('fails a block that throws, a shell command that fails, and a transcript whose output differs', async () => {
    expect((await runBlock(probe('ts', "throw new Error('boom');\n"), world)).detail).toContain('boom');
    expect((await runBlock(probe('sh', 'false\necho after\n'), world)).ok).toBe(false);
    const session = '$ echo \'{"error":1}\'\n{"id":"x"}\n';
    expect((await runBlock(probe('console', session), world)).ok).toBe(false);
  });

  it('fails a block on an HTTP error, unless the block writes out the status to check it itself', async () => {
    const unknown = 'http://127.0.0.1:8787/v1/no-such-route';
    expect((await runBlock(probe('sh', `curl -s ${unknown}\n`), world)).ok).toBe(false);
    const checked = `code=$(curl -s -o /dev/null -w '%{http_code}' ${unknown})\ntest "$code" = 404\n`;
    expect(await runBlock(probe('sh', checked), world)).toMatchObject({ ok: true });
  });

  it('fails a block that reaches beyond loopback, even when it catches the error', async () => {
    const result = await runBlock(probe('ts', "await fetch('https://example.com').catch(() => {});\n"), world);
    expect(result).toMatchObject({ ok: false, detail: expect.stringContaining('network') });
  });
});
