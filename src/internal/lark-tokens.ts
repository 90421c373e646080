/** A grammar the reader cannot take: malformed, or using what it does not support. */
export class LarkGrammarError extends Error {}

/** The tokens of a Lark grammar; line ends are tokens, since a definition ends with its line. */
export type Token =
  | { type: 'name' | 'op' | 'number'; text: string }
  | { type: 'string'; text: string }
  | { type: 'regex'; source: string; flags: string }
  | { type: 'newline' };

/** The grammar's tokens; comments dropped. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at]!;
    if (char === '\n') {
      tokens.push({ type: 'newline' });
      at += 1;
    } else if (/\s/.test(char)) at += 1;
    else if (source.startsWith('//', at)) at = lineEnd(source, at);
    else if (char === '"') {
      const { text, end } = readString(source, at);
      // A case-insensitive literal (`"select"i`) is written as it is: one of the texts it accepts.
      tokens.push({ type: 'string', text });
      at = end + (source[end] === 'i' ? 1 : 0);
    } else if (char === '/') {
      const { source: regex, end } = readRegex(source, at);
      const flags = /^[imslux]*/.exec(source.slice(end))![0];
      tokens.push({ type: 'regex', source: regex, flags });
      at = end + flags.length;
    } else {
      // `?` and `!` before a name are rule modifiers only where a definition starts; elsewhere `?` is "optional".
      const lineStart = tokens.length === 0 || tokens.at(-1)!.type === 'newline';
      const match = matchAt(lineStart ? DEFINED_NAME : NAME, source, at) ?? matchAt(OPERATOR, source, at);
      if (!match) throw new LarkGrammarError(`unexpected ${JSON.stringify(char)} in the grammar`);
      const text = match[0];
      tokens.push({ type: /^\d/.test(text) ? 'number' : /^[?!]?[A-Za-z_]/.test(text) ? 'name' : 'op', text });
      at += text.length;
    }
  }
  return tokens;
}

const DEFINED_NAME = /[?!]?[A-Za-z_]\w*/y;
const NAME = /[A-Za-z_]\w*/y;
const OPERATOR = /\d+|->|\.\.|[:|()[\]?*+~.{},]/y;

function matchAt(pattern: RegExp, source: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(source);
}

function lineEnd(source: string, at: number): number {
  const end = source.indexOf('\n', at);
  return end === -1 ? source.length : end;
}

/** A double-quoted literal, with Python's escapes (`\n`, `\t`, `\"`, `\\`, `\uXXXX`, `\xXX`). */
function readString(source: string, start: number): { text: string; end: number } {
  let text = '';
  for (let at = start + 1; at < source.length; at++) {
    const char = source[at]!;
    if (char === '"') return { text, end: at + 1 };
    if (char === '\n') break;
    if (char !== '\\') {
      text += char;
      continue;
    }
    const next = source[++at]!;
    const hex = next === 'u' ? 4 : next === 'x' ? 2 : 0;
    if (hex) {
      text += String.fromCharCode(Number.parseInt(source.slice(at + 1, at + 1 + hex), 16));
      at += hex;
    } else text += { n: '\n', t: '\t', r: '\r', f: '\f', '0': '\0' }[next] ?? next;
  }
  throw new LarkGrammarError('a string literal is not closed');
}

function readRegex(source: string, start: number): { source: string; end: number } {
  let inClass = false;
  for (let at = start + 1; at < source.length; at++) {
    const char = source[at]!;
    if (char === '\\') at += 1;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return { source: source.slice(start + 1, at), end: at + 1 };
    else if (char === '\n') break;
  }
  throw new LarkGrammarError('a regular expression is not closed');
}
