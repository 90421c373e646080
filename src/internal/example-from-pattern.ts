// A small regex-to-string generator for the patterns schemas really use: anchors, literals, escapes (\d \w \s \.),
// classes ([A-Z0-9_-], [^…]), groups with alternation, quantifiers (? * + {n} {n,} {n,m}). Anything else (lookarounds,
// backreferences) gives up, and the caller falls back to a format example or plain text.
interface Atom {
  chars?: string;
  alternatives?: Atom[][];
  min: number;
  max: number;
}

const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';

const ESCAPES: Record<string, string> = {
  d: '0123456789',
  w: WORD,
  s: ' ',
  D: 'a',
  W: '-',
  S: 'a',
  n: '\n',
  r: '\r',
  t: '\t',
  f: '\f',
  v: '\v',
};

export function fromPattern(pattern: string, minLength: number, variant: number): string | undefined {
  try {
    const { alternatives } = parseGroup(pattern, 0);
    const atoms = alternatives[variant % alternatives.length]!;
    const counts = atoms.map((atom) => atom.min);
    const render = () => atoms.map((atom, index) => renderAtom(atom, variant, counts[index]!)).join('');
    // Shortest match first; when minLength wants more, repeat the first atoms that may repeat.
    for (let index = 0; index < atoms.length && render().length < minLength; ) {
      if (counts[index]! < atoms[index]!.max && renderAtom(atoms[index]!, variant, 1) !== '') counts[index]! += 1;
      else index += 1;
    }
    return new RegExp(pattern, 'u').test(render()) ? render() : undefined;
  } catch {
    return undefined;
  }
}

function renderAtom(atom: Atom, variant: number, count: number): string {
  const once =
    atom.chars !== undefined
      ? (atom.chars[variant % atom.chars.length] ?? '')
      : atom
          .alternatives![variant % atom.alternatives!.length]!.map((inner) => renderAtom(inner, variant, inner.min))
          .join('');
  return once.repeat(count);
}

function parseGroup(source: string, start: number): { alternatives: Atom[][]; end: number } {
  const alternatives: Atom[][] = [[]];
  let index = start;
  for (; index < source.length && source[index] !== ')'; index++) {
    const char = source[index]!;
    let atom: Atom | undefined;
    if (char === '|') alternatives.push([]);
    else if (char === '(') {
      const named = source.startsWith('(?<', index) && !/^\(\?<[=!]/.test(source.slice(index));
      const group = parseGroup(
        source,
        index + (source.startsWith('(?:', index) ? 3 : named ? source.indexOf('>', index) + 1 - index : 1),
      );
      [atom, index] = [{ alternatives: group.alternatives, min: 1, max: 1 }, group.end];
    } else if (char === '[') {
      const close = source.indexOf(']', index + 2);
      if (close === -1) throw new Error('unclosed class');
      [atom, index] = [{ chars: parseClass(source.slice(index + 1, close)), min: 1, max: 1 }, close];
    } else if (char === '\\') {
      const escaped = source[++index]!;
      if (!/[bB]/.test(escaped)) atom = { chars: ESCAPES[escaped] ?? escaped, min: 1, max: 1 };
    } else if ('*+?{'.includes(char)) throw new Error('unsupported pattern');
    else if (char !== '^' && char !== '$') atom = { chars: char === '.' ? 'x' : char, min: 1, max: 1 };
    if (!atom) continue;
    const quantifier = /^(?:\?|\*|\+|\{(\d+)(,(\d*))?\})\??/.exec(source.slice(index + 1));
    if (quantifier) {
      const [text, low, comma, high] = quantifier;
      if (low !== undefined)
        [atom.min, atom.max] = [Number(low), comma ? (high ? Number(high) : Infinity) : Number(low)];
      else [atom.min, atom.max] = text.startsWith('+') ? [1, Infinity] : text.startsWith('*') ? [0, Infinity] : [0, 1];
      index += text.length;
    }
    alternatives.at(-1)!.push(atom);
  }
  return { alternatives, end: index };
}

/** The characters a class admits (ranges expanded); a negated class gets the word characters it leaves out. */
function parseClass(body: string): string {
  const negated = body.startsWith('^');
  let chars = '';
  for (const [, from, to] of body.slice(negated ? 1 : 0).matchAll(/(\\.|[^\\])(?:-(\\.|[^\\]))?/g)) {
    const [first, last] = [from!, to].map((char) => (char?.length === 2 ? (ESCAPES[char[1]!] ?? char[1]!) : char));
    if (last === undefined) chars += first;
    else for (let code = first!.charCodeAt(0); code <= last.charCodeAt(0); code++) chars += String.fromCharCode(code);
  }
  return negated ? [...WORD].filter((char) => !chars.includes(char)).join('') : chars;
}

/** Defaults tried last for a pattern the generator cannot read: the shortest texts that common patterns take. */
const FALLBACK_TEXTS = ['', 'x', '0', ' ', 'a', 'example'];

/**
 * A text the regular expression `source` (Python syntax, as Lark and OpenAI's regex grammars write it, with its
 * `flags`) matches whole: the first of `candidates` that fits, else one generated from the pattern, else a common
 * short text; `undefined` when none fits.
 */
export function textMatching(source: string, flags: string, candidates: readonly string[]): string | undefined {
  const pattern = source.replace(/\(\?P</g, '(?<');
  let whole: RegExp;
  try {
    whole = new RegExp(`^(?:${pattern})$`, [...new Set(flags)].filter((flag) => 'ims'.includes(flag)).join(''));
  } catch {
    return undefined;
  }
  const generated = fromPattern(pattern, 0, 0);
  const tried = [...candidates, ...(generated === undefined ? [] : [generated]), ...FALLBACK_TEXTS];
  return tried.find((text) => whole.test(text));
}
