import { Ajv as Ajv07 } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import AjvDraft04 from 'ajv-draft-04';
import ajvFormatsModule from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/index.ts';
import { compileSchema, type JsonSchema, prepareSchemas } from '../../src/structured-output/json-schema-validator.ts';
import { SUITE_DRAFTS, SUITE_TESTS, type SuiteDraft, suiteGroups, withDraft } from '../helpers/json-schema-suite.ts';

if (!SUITE_TESTS && process.env.CI) throw new Error('The JSON-Schema-Test-Suite must be present in CI');
if (!SUITE_TESTS) console.warn('SKIPPED: validator agreement on the JSON-Schema-Test-Suite (no suite found).');

/**
 * Stock ajv, as a user of the draft would set it up (formats added, unknown keywords allowed), of the test's own: the
 * referee. Each engine of ours gives its verdict on every case of the suite (the required tests and the format
 * tests, which we assert); ajv's verdict is what both must reproduce.
 */
// CommonJS packages: their `default` is the module object under Node's interop.
const addFormats = ((ajvFormatsModule as unknown as { default?: unknown }).default ?? ajvFormatsModule) as (
  ajv: unknown,
) => void;
const AjvDraft04Class = ((AjvDraft04 as unknown as { default?: typeof Ajv07 }).default ??
  AjvDraft04) as unknown as typeof Ajv07;

function stockAjv(draft: SuiteDraft) {
  const options = { strict: false, ownProperties: true };
  const ajv =
    draft === 'draft4'
      ? new AjvDraft04Class(options)
      : draft === 'draft2019-09'
        ? new Ajv2019(options)
        : draft === 'draft2020-12'
          ? new Ajv2020(options)
          : new Ajv07(options);
  if (draft === 'draft6') ajv.addMetaSchema(draft06);
  addFormats(ajv);
  return ajv;
}

type Verdict = 'valid' | 'invalid' | 'refused' | 'overflow';
type Engine = 'ajv' | 'interpreter';

function verdictOf(check: () => boolean): Verdict {
  try {
    return check() ? 'valid' : 'invalid';
  } catch (error) {
    if (error instanceof InvalidRequestError) return 'refused';
    // A validator that overflows the stack (a schema that refers to itself without consuming the instance).
    if (error instanceof RangeError) return 'overflow';
    throw error;
  }
}

type Counts = Record<Engine, number>;
interface Tally {
  cases: number;
  /** Cases where stock ajv's verdict is the suite's. */
  ajvRight: number;
  agree: Counts;
  /** Of the cases stock ajv gets right: those where the engine says the same (the target: all of them). */
  agreeWhereAjvRight: Counts;
  /** Disagreements with stock ajv where ajv's verdict is the suite's: `where: stock ajv X, engine Y (suite: Z)`. */
  differ: Record<Engine, string[]>;
  /** Disagreements with stock ajv where the engine's verdict is the suite's and ajv's is not. */
  onlyEngineRight: Counts;
  /** Disagreements where neither is the suite's. */
  bothWrong: string[];
}
const tallies: Record<string, Tally> = {};
afterAll(() => {
  if (!SUITE_TESTS) return;
  const percent = (n: number, of: number) => `${n}/${of} (${((100 * n) / of).toFixed(2)}%)`;
  const lines = Object.entries(tallies).map(
    ([draft, t]) =>
      `${draft}: ${t.cases} cases, stock ajv right on ${t.ajvRight}. Same verdict as stock ajv: ajv engine ` +
      `${percent(t.agree.ajv, t.cases)}, interpreter ${percent(t.agree.interpreter, t.cases)}; on the cases ajv ` +
      `gets right: ajv engine ${percent(t.agreeWhereAjvRight.ajv, t.ajvRight)}, interpreter ` +
      `${percent(t.agreeWhereAjvRight.interpreter, t.ajvRight)}; interpreter right where ajv is not: ` +
      `${t.onlyEngineRight.interpreter}; both wrong: ${t.bothWrong.length}`,
  );
  const all = Object.values(tallies);
  console.log(
    `Validator agreement on the JSON-Schema-Test-Suite (required tests and optional/format):\n${lines.join('\n')}\n` +
      `Interpreter differs where ajv is right:\n${all.flatMap((t) => t.differ.interpreter).join('\n')}\n` +
      `Both differ from the suite:\n${all.flatMap((t) => t.bothWrong).join('\n')}`,
  );
});

describe.skipIf(!SUITE_TESTS)('both validator engines agree with stock ajv on the JSON-Schema-Test-Suite', () => {
  for (const draft of Object.keys(SUITE_DRAFTS) as SuiteDraft[]) {
    it(draft, async () => {
      const referee = stockAjv(draft);
      const counts = () => ({ ajv: 0, interpreter: 0 });
      const tally: Tally = {
        cases: 0,
        ajvRight: 0,
        agree: counts(),
        agreeWhereAjvRight: counts(),
        differ: { ajv: [], interpreter: [] },
        onlyEngineRight: counts(),
        bothWrong: [],
      };
      tallies[draft] = tally;
      for (const group of [...suiteGroups(draft), ...suiteGroups(draft, 'optional/format')]) {
        // response_format takes an object: a boolean root schema is refused before any engine sees it.
        if (typeof group.schema !== 'object') continue;
        const schema = withDraft(group.schema, draft) as JsonSchema;
        // As the pipeline does before compiling: what the interpreter needs loaded (the meta-schemas) is loaded.
        await prepareSchemas(schema, 'interpreter');
        let stock: ((value: unknown) => boolean) | undefined;
        try {
          stock = referee.compile(structuredClone(schema)) as (value: unknown) => boolean;
        } catch {}
        for (const test of group.tests) {
          tally.cases += 1;
          const where = `${draft}/${group.file}: ${group.description}: ${test.description}`;
          const expected: Verdict = verdictOf(() => {
            if (!stock) throw new InvalidRequestError('ajv cannot compile it');
            return stock(test.data);
          });
          const suite: Verdict = test.valid ? 'valid' : 'invalid';
          if (expected === suite) tally.ajvRight += 1;
          for (const engine of ['ajv', 'interpreter'] as const) {
            const got = verdictOf(() => compileSchema(schema, 'schema', engine).validate(test.data));
            if (got === expected) tally.agree[engine] += 1;
            if (got === expected && expected === suite) tally.agreeWhereAjvRight[engine] += 1;
            if (got === expected) continue;
            const line = `${where}: stock ajv ${expected}, ${engine} ${got} (suite: ${test.valid})`;
            if (expected === suite) tally.differ[engine].push(line);
            else if (got !== suite) tally.bothWrong.push(line);
            else tally.onlyEngineRight[engine] += 1;
          }
        }
      }
      // The gateway's ajv is stock ajv with the gateway's options: the same verdict on every case.
      expect(tally.agree.ajv).toBe(tally.cases);
      // And so does the interpreter on every case stock ajv gets right.
      expect(tally.differ.interpreter).toEqual([]);
      // Thousands of compilations: a bound only to catch a hang.
    }, 180_000);
  }
});
