import { readFileSync } from 'node:fs';

/**
 * One fenced code block of a Markdown file. The fence's info string is the language, then words of ours:
 * `fragment` (shown, never run: it cannot run as written or offline), `file=<path>` (a file the prose names: it is
 * written at that path in the examples' working directory before any block runs) and `walkthrough` (a step of the
 * page's walkthrough: its steps run in order in one shell, against real engines, in `walkthrough.test.ts`).
 */
export interface CodeBlock {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word; `''` when the fence has none. */
  lang: string;
  fragment: boolean;
  walkthrough: boolean;
  /** `file=<path>`: where the block is written for the other blocks to use. */
  writeTo: string | undefined;
  code: string;
}

/** The languages that are examples: run, or parsed for data. Other blocks (`text`) are output or prose. */
export const RUN_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'sh', 'bash', 'console']);
export const DATA_LANGS = new Set(['json', 'yaml']);
export const SHOWN_LANGS = new Set(['text']);

/** The fenced blocks of a Markdown file, with the line each opens on. */
export function codeBlocks(path: string, name: string): CodeBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length; index += 1) {
      const line = lines[index]!;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    const words = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({
      file: name,
      line: start + 1,
      lang: words[0] ?? '',
      fragment: words.includes('fragment'),
      walkthrough: words.includes('walkthrough'),
      writeTo: words.find((word) => word.startsWith('file='))?.slice('file='.length),
      code: `${body.join('\n')}\n`,
    });
  }
  return blocks;
}

/**
 * What a block is for the test: run it, parse it, show it, leave it to the walkthrough test, or a fence without a
 * language (an error).
 */
export function kindOf(block: CodeBlock): 'run' | 'data' | 'fragment' | 'walkthrough' | 'shown' | 'unknown' {
  if (block.fragment) return 'fragment';
  if (block.walkthrough) return 'walkthrough';
  if (RUN_LANGS.has(block.lang)) return 'run';
  if (DATA_LANGS.has(block.lang)) return 'data';
  if (SHOWN_LANGS.has(block.lang)) return 'shown';
  return 'unknown';
}
