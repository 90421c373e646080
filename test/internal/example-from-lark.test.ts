import { describe, expect, it } from 'vitest';
import { exampleFromLark } from '../../src/internal/example-from-lark.ts';
import { LarkGrammarError } from '../../src/internal/lark-grammar.ts';

const hints = { text: 'Simulated' };

describe('exampleFromLark', () => {
  it("writes a patch Codex's apply_patch grammar accepts, adding the file it is given", () => {
    const grammar = [
      'start: begin_patch hunk+ end_patch',
      'begin_patch: "*** Begin Patch" LF',
      'end_patch: "*** End Patch" LF?',
      'hunk: add_hunk | delete_hunk | update_hunk',
      'add_hunk: "*** Add File: " filename LF add_line+',
      'delete_hunk: "*** Delete File: " filename LF',
      'update_hunk: "*** Update File: " filename LF change_move? change?',
      'filename: /(.+)/',
      'add_line: "+" /(.*)/ LF -> line',
      'change_move: "*** Move to: " filename LF',
      'change: (change_context | change_line)+ eof_line?',
      'change_context: ("@@" | "@@ " /(.+)/) LF',
      'change_line: ("+" | "-" | " ") /(.*)/ LF',
      'eof_line: "*** End of File" LF',
      '%import common.LF',
    ].join('\n');
    expect(exampleFromLark(grammar, { file: 'src/hello.ts', text: 'Simulated' })).toBe(
      '*** Begin Patch\n*** Add File: src/hello.ts\n+Simulated\n*** End Patch',
    );
  });

  it('ends on recursive rules, taking the first alternative that does not recurse', () => {
    const grammar = `
      // Arithmetic, left-recursive as Lark allows.
      ?start: sum
      ?sum: sum "+" product
          | product
      ?product: product "*" atom
          | atom
      atom: NUMBER | "(" sum ")"
      %import common.NUMBER
      %ignore " "`;
    expect(exampleFromLark(grammar, hints)).toBe('0');
    // Only recursion: the shortest way out is taken below a depth.
    const nested = 'start: "[" start "]" | "[" start "," start "]" | "x"';
    expect(exampleFromLark(nested, hints)).toBe('x');
    const forced = 'start: "(" inner ")"\ninner: "<" inner ">" | "."';
    expect(exampleFromLark(forced, hints)).toBe('(.)');
  });

  it('reads groups, [optional], ~ counts, ranges, priorities, modifiers, aliases and imported terminals', () => {
    const grammar = `start: greeting " " NAME ("," " " NAME)* [" and friends"] "!" BANG~2 " " CODE
greeting.2: "hello"i -> hi
!NAME: CNAME
BANG: "!"
CODE: "A".."Z" DIGIT~3..4 WS
%import common (CNAME, DIGIT)
%import common.WS`;
    // The fewest of each: no repeated name, no friends, two BANGs after the "!", three digits, one space.
    expect(exampleFromLark(grammar, hints)).toBe('hello a!!! A000 ');
  });

  it('puts the free-text hint where a pattern takes it, and a generated match where it does not', () => {
    const grammar = 'start: "id=" ID ";" NOTE\nID: /[0-9]{4}/\nNOTE: /[^\\n]+/';
    expect(exampleFromLark(grammar, hints)).toBe('id=0000;Simulated');
  });

  it.each([
    ['a template rule', 'start: _sep{x, ","}\n_sep{x, sep}: x (sep x)*'],
    ['an import of another grammar', 'start: X\n%import .other.X'],
    ['a rule used but not defined', 'start: missing'],
    ['a rule that never ends', 'start: start "x"'],
    ['an unclosed string', 'start: "abc'],
    ['a pattern nothing matches', 'start: /(?!)/'],
  ])('refuses %s with a LarkGrammarError', (_what, grammar) => {
    expect(() => exampleFromLark(grammar, hints)).toThrow(LarkGrammarError);
  });
});
