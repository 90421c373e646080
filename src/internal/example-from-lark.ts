import { textMatching } from './example-from-pattern.ts';
import { type LarkExpr, type LarkGrammar, LarkGrammarError, parseLark } from './lark-grammar.ts';

/** What a generated text may borrow from the conversation, so that it reads as an answer to it. */
export interface TextHints {
  /** A file name the conversation names, for a terminal under a rule about files or paths. */
  file?: string;
  /** Free text, for a terminal that takes any text. */
  text: string;
}

/** Beyond this many rules deep, each choice takes the shortest way out, so recursive grammars end. */
const DEEP = 24;
/** Bounds on what one example may cost: expansions made, characters written. */
const MAX_STEPS = 100_000;
const MAX_LENGTH = 20_000;
const FILE_RULE = /file|path/i;

/**
 * A deterministic text the Lark grammar `definition` accepts, as a model constrained by it would write one: each
 * choice takes its first alternative that does not recurse, optional parts are left out, repetitions take their
 * fewest items, and regex terminals take the hints where they fit (a file name under a rule named for files or paths,
 * else the free text), else a text generated from the pattern. Throws `LarkGrammarError` for a grammar it cannot read
 * or derive.
 */
export function exampleFromLark(definition: string, hints: TextHints): string {
  const key = `${hints.file ?? ''}\0${hints.text}\0${definition}`;
  let text = examples.get(key);
  if (text === undefined) {
    text = new Derivation(parseLark(definition), hints).text();
    if (examples.size >= KEPT_EXAMPLES) examples.delete(examples.keys().next().value!);
    examples.set(key, text);
  }
  return text;
}

/** Examples made, by grammar and hints: an agent sends the same tools on every turn. */
const examples = new Map<string, string>();
const KEPT_EXAMPLES = 64;

class Derivation {
  readonly #grammar: LarkGrammar;
  readonly #hints: TextHints;
  readonly #heights: Map<string, number>;
  readonly #out: string[] = [];
  #length = 0;
  #steps = 0;

  constructor(grammar: LarkGrammar, hints: TextHints) {
    this.#grammar = grammar;
    this.#hints = hints;
    this.#heights = this.#derivationHeights();
  }

  text(): string {
    if (!Number.isFinite(this.#heights.get(this.#grammar.start)!))
      throw new LarkGrammarError(`"${this.#grammar.start}" derives no finite text`);
    this.#write({ kind: 'name', name: this.#grammar.start }, [], false);
    return this.#out.join('');
  }

  /**
   * Per definition, the height of its lowest derivation tree (`Infinity`: none ends), by a fixpoint over the
   * definitions: what the shortest-way-out choices follow.
   */
  #derivationHeights(): Map<string, number> {
    const heights = new Map<string, number>();
    for (const name of this.#grammar.definitions.keys()) heights.set(name, Infinity);
    for (let round = 0, changed = true; changed && round <= heights.size; round++) {
      changed = false;
      for (const [name, expr] of this.#grammar.definitions) {
        const height = 1 + this.#height(expr, heights);
        if (height < heights.get(name)!) {
          heights.set(name, height);
          changed = true;
        }
      }
    }
    return heights;
  }

  #height(expr: LarkExpr, heights: ReadonlyMap<string, number>): number {
    switch (expr.kind) {
      case 'literal':
      case 'range':
        return 0;
      case 'regex':
        return this.#regexText(expr, false) === undefined ? Infinity : 0;
      case 'name':
        return heights.get(expr.name) ?? Infinity;
      case 'seq':
        return Math.max(0, ...expr.items.map((item) => this.#height(item, heights)));
      case 'alt':
        return Math.min(...expr.options.map((option) => this.#height(option, heights)));
      case 'repeat':
        return expr.min === 0 ? 0 : this.#height(expr.item, heights);
    }
  }

  #write(expr: LarkExpr, stack: readonly string[], inFile: boolean): void {
    if (++this.#steps > MAX_STEPS || this.#length > MAX_LENGTH)
      throw new LarkGrammarError('the grammar derives no text of a reasonable size');
    switch (expr.kind) {
      case 'literal':
        this.#emit(expr.text);
        break;
      case 'range':
        this.#emit(expr.from);
        break;
      case 'regex':
        this.#emit(this.#regexText(expr, inFile)!);
        break;
      case 'name': {
        const body = this.#grammar.definitions.get(expr.name);
        if (!body) throw new LarkGrammarError(`"${expr.name}" is used but not defined`);
        this.#write(body, [...stack, expr.name], inFile || FILE_RULE.test(expr.name));
        break;
      }
      case 'seq':
        for (const item of expr.items) this.#write(item, stack, inFile);
        break;
      case 'alt':
        this.#write(this.#choose(expr.options, stack), stack, inFile);
        break;
      case 'repeat':
        for (let count = 0; count < expr.min; count++) this.#write(expr.item, stack, inFile);
    }
  }

  /** The first alternative that ends and does not go back into a rule being expanded; deep down, the lowest. */
  #choose(options: readonly LarkExpr[], stack: readonly string[]): LarkExpr {
    const heights = options.map((option) => this.#height(option, this.#heights));
    if (stack.length < DEEP) {
      const onStack = new Set(stack);
      const fresh = options.findIndex(
        (option, index) => Number.isFinite(heights[index]!) && !namesOf(option).some((name) => onStack.has(name)),
      );
      if (fresh !== -1) return options[fresh]!;
    }
    return options[heights.indexOf(Math.min(...heights))]!;
  }

  /** Per regex terminal, its text outside and inside a file rule: the heights ask for it again and again. */
  readonly #regexTexts = new Map<LarkExpr, [string | undefined, string | undefined]>();

  #regexText(expr: Extract<LarkExpr, { kind: 'regex' }>, inFile: boolean): string | undefined {
    let texts = this.#regexTexts.get(expr);
    if (!texts) {
      const { file, text } = this.#hints;
      const plain = textMatching(expr.source, expr.flags, [text]);
      texts = [plain, file ? textMatching(expr.source, expr.flags, [file, text]) : plain];
      this.#regexTexts.set(expr, texts);
    }
    return texts[inFile ? 1 : 0];
  }

  #emit(text: string): void {
    this.#out.push(text);
    this.#length += text.length;
  }
}

/** The names an expression uses directly (not through other rules). */
function namesOf(expr: LarkExpr): string[] {
  switch (expr.kind) {
    case 'name':
      return [expr.name];
    case 'seq':
      return expr.items.flatMap(namesOf);
    case 'alt':
      return expr.options.flatMap(namesOf);
    case 'repeat':
      return expr.min === 0 ? [] : namesOf(expr.item);
    default:
      return [];
  }
}
