import { LarkGrammarError, type Token, tokenize } from './lark-tokens.ts';

export { LarkGrammarError } from './lark-tokens.ts';

/**
 * A reader of Lark grammars, the syntax OpenAI's custom tools take for their input format (Codex's `apply_patch`):
 * rules and terminals, alternatives, groups, `[optional]`, `? * +`, `~ n` and `~ n..m`, string literals (with `i`),
 * `"a".."z"` ranges, `/regex/flags`, aliases (`-> name`, ignored), priorities, and `%import common.X` for Lark's
 * common terminals. Templates and imports of other grammars are refused (`LarkGrammarError`).
 */
export type LarkExpr =
  | { kind: 'literal'; text: string }
  | { kind: 'regex'; source: string; flags: string }
  | { kind: 'range'; from: string; to: string }
  | { kind: 'name'; name: string }
  | { kind: 'seq'; items: LarkExpr[] }
  | { kind: 'alt'; options: LarkExpr[] }
  | { kind: 'repeat'; item: LarkExpr; min: number; max: number };

export interface LarkGrammar {
  /** Rules and terminals by name (rule modifiers `?`, `!` and priorities stripped). */
  definitions: Map<string, LarkExpr>;
  /** `start`, else the first rule defined. */
  start: string;
}

/** Lark's `common` terminals, written small: what an example of each needs, not every form it matches. */
const COMMON = `
DIGIT: "0".."9"
HEXDIGIT: "a".."f" | "A".."F" | DIGIT
INT: DIGIT+
SIGNED_INT: ["+" | "-"] INT
DECIMAL: INT "." INT? | "." INT
FLOAT: INT | DECIMAL
SIGNED_FLOAT: ["+" | "-"] FLOAT
NUMBER: FLOAT | INT
SIGNED_NUMBER: ["+" | "-"] NUMBER
ESCAPED_STRING: "\\"" /[a-z]*/ "\\""
LCASE_LETTER: "a".."z"
UCASE_LETTER: "A".."Z"
LETTER: LCASE_LETTER | UCASE_LETTER
WORD: LETTER+
CNAME: (LETTER | "_") (LETTER | DIGIT | "_")*
WS_INLINE: (" " | /\\t/)+
WS: /[ \\t\\f\\r\\n]/+
CR: /\\r/
LF: /\\n/
NEWLINE: (CR? LF)+
SH_COMMENT: /#[^\\n]*/
CPP_COMMENT: /\\/\\/[^\\n]*/
C_COMMENT: "/*" /[^*]*/ "*/"
SQL_COMMENT: /--[^\\n]*/
`;

export function parseLark(source: string): LarkGrammar {
  const definitions = new Map<string, LarkExpr>();
  const imports: Array<[string, string]> = [];
  const body = source.replace(/^[ \t]*%(\w+)(.*)$/gm, (_line, directive: string, rest: string) => {
    if (directive === 'import') imports.push(...commonImports(rest));
    else if (!['ignore', 'declare', 'override', 'extend'].includes(directive))
      throw new LarkGrammarError(`unknown directive %${directive}`);
    return '';
  });
  const order = readDefinitions(tokenize(body), definitions);
  if (imports.length > 0) {
    const common = commonTerminals();
    for (const [name, alias] of imports) {
      if (!common.has(name)) throw new LarkGrammarError(`common.${name} is not a terminal Lark's common defines`);
      copyWithDependencies(name, alias, common, definitions);
    }
  }
  const start = definitions.has('start') ? 'start' : order.find((name) => name === name.toLowerCase());
  if (!start) throw new LarkGrammarError('the grammar defines no rule');
  return { definitions, start };
}

let common: Map<string, LarkExpr> | undefined;

/** Lark's common terminals, read once. */
function commonTerminals(): ReadonlyMap<string, LarkExpr> {
  if (!common) readDefinitions(tokenize(COMMON), (common = new Map()));
  return common;
}

/** `%import common.LF`, `%import common.LF -> NL`, `%import common (LF, WS)`. */
function commonImports(rest: string): Array<[string, string]> {
  const single = /^\s+common\.(\w+)(?:\s*->\s*(\w+))?\s*$/.exec(rest);
  if (single) return [[single[1]!, single[2] ?? single[1]!]];
  const several = /^\s+common\s*\(([^)]*)\)\s*$/.exec(rest);
  if (several) return several[1]!.split(',').map((name) => [name.trim(), name.trim()] as [string, string]);
  throw new LarkGrammarError(`only Lark's common terminals can be imported (got %import${rest})`);
}

function copyWithDependencies(
  name: string,
  alias: string,
  from: ReadonlyMap<string, LarkExpr>,
  into: Map<string, LarkExpr>,
): void {
  if (into.has(alias)) return;
  const expr = from.get(name)!;
  into.set(alias, expr);
  for (const used of namesIn(expr)) copyWithDependencies(used, used, from, into);
}

function namesIn(expr: LarkExpr): string[] {
  switch (expr.kind) {
    case 'name':
      return [expr.name];
    case 'seq':
      return expr.items.flatMap(namesIn);
    case 'alt':
      return expr.options.flatMap(namesIn);
    case 'repeat':
      return namesIn(expr.item);
    default:
      return [];
  }
}

/** Definitions, one per `name:` at the start of a line; a line starting with `|` goes on with the one before. */
function readDefinitions(tokens: Token[], into: Map<string, LarkExpr>): string[] {
  const order: string[] = [];
  const reader = new Reader(tokens);
  for (;;) {
    reader.skipNewlines();
    if (reader.done()) return order;
    const head = reader.next();
    if (head.type !== 'name') throw new LarkGrammarError('a definition must start with its name');
    const name = head.text.replace(/^[?!]/, '');
    if (reader.peekOp('.')) {
      reader.next();
      reader.expect('number');
    }
    if (reader.peekOp('{')) throw new LarkGrammarError(`template rules (${name}{…}) are not supported`);
    if (!reader.peekOp(':')) throw new LarkGrammarError(`"${name}" must be followed by ":"`);
    reader.next();
    into.set(name, reader.expansions());
    order.push(name);
  }
}

class Reader {
  #at = 0;
  /** Inside brackets, line ends mean nothing; at the top level one ends the definition unless `|` follows. */
  #depth = 0;
  readonly #tokens: Token[];

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  done(): boolean {
    return this.#at >= this.#tokens.length;
  }

  next(): Token {
    const token = this.#tokens[this.#at++];
    if (!token) throw new LarkGrammarError('the grammar ends in the middle of a definition');
    return token;
  }

  skipNewlines(): void {
    while (this.#tokens[this.#at]?.type === 'newline') this.#at += 1;
  }

  peekOp(text: string): boolean {
    const token = this.#tokens[this.#at];
    return token?.type === 'op' && token.text === text;
  }

  expect(type: Token['type']): Token {
    const token = this.next();
    if (token.type !== type) throw new LarkGrammarError(`expected a ${type} in the grammar`);
    return token;
  }

  /** Alternatives; a top-level line end goes on only when the next line starts with `|`. */
  expansions(): LarkExpr {
    const options = [this.#alias()];
    for (;;) {
      const lineEnd = this.#at;
      this.skipNewlines();
      if (!this.peekOp('|')) {
        if (this.#depth === 0) this.#at = lineEnd;
        return options.length === 1 ? options[0]! : { kind: 'alt', options };
      }
      this.#at += 1;
      options.push(this.#alias());
    }
  }

  #alias(): LarkExpr {
    const items: LarkExpr[] = [];
    for (;;) {
      if (this.#depth > 0) this.skipNewlines();
      const token = this.#tokens[this.#at];
      if (!token || token.type === 'newline' || (token.type === 'op' && ['|', ')', ']', '->'].includes(token.text)))
        break;
      items.push(this.#quantified());
    }
    if (this.peekOp('->')) {
      this.#at += 1;
      this.expect('name');
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  #quantified(): LarkExpr {
    const item = this.#atom();
    const token = this.#tokens[this.#at];
    if (token?.type !== 'op') return item;
    const bounds = { '?': [0, 1], '*': [0, Infinity], '+': [1, Infinity] }[token.text];
    if (bounds) {
      this.#at += 1;
      return { kind: 'repeat', item, min: bounds[0]!, max: bounds[1]! };
    }
    if (token.text !== '~') return item;
    this.#at += 1;
    const min = this.#number();
    let max = min;
    if (this.peekOp('..')) {
      this.#at += 1;
      max = this.#number();
    }
    return { kind: 'repeat', item, min, max };
  }

  #number(): number {
    const token = this.next();
    if (token.type !== 'number') throw new LarkGrammarError('expected a number after "~"');
    return Number(token.text);
  }

  #atom(): LarkExpr {
    const token = this.next();
    if (token.type === 'string') {
      if (!this.peekOp('..')) return { kind: 'literal', text: token.text };
      this.#at += 1;
      const to = this.expect('string') as Extract<Token, { type: 'string' }>;
      return { kind: 'range', from: token.text, to: to.text };
    }
    if (token.type === 'regex') return { kind: 'regex', source: token.source, flags: token.flags };
    if (token.type === 'name') return { kind: 'name', name: token.text };
    if (token.type === 'op' && (token.text === '(' || token.text === '[')) {
      this.#depth += 1;
      const inner = this.expansions();
      this.skipNewlines();
      const close = this.next();
      this.#depth -= 1;
      if (close.type !== 'op' || close.text !== (token.text === '(' ? ')' : ']'))
        throw new LarkGrammarError(`a "${token.text}" is not closed`);
      return token.text === '(' ? inner : { kind: 'repeat', item: inner, min: 0, max: 1 };
    }
    throw new LarkGrammarError(`unexpected ${token.type === 'op' ? `"${token.text}"` : token.type} in the grammar`);
  }
}
