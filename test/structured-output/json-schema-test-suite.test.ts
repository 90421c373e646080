import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError, StructuredOutputError } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { SUITE_TESTS } from '../helpers/json-schema-suite.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { strictFormOf } from '../helpers/strict-form.ts';

// An Ajv of the test's own for the schemas as sent: a mistake in the gateway's validator cannot hide here.
const independent = new Ajv2020({ strict: false, ownProperties: true });

/**
 * The official JSON-Schema-Test-Suite (MIT, ../shared/data/json-schema-test-suite, beside the checkout in CI): each
 * of its schemas goes in `response_format`, each of its instances comes back as the model's answer, on two paths:
 * the simulator standing in for Claude (validated as sent) and a fake OpenAI server (the strict path, where a null
 * may mean "left out"). Valid instances must come back unchanged; invalid ones must never come back as valid.
 */
// Found as the agreement test finds it: beside the checkout or one of its parents (a worktree sits a level deeper).
const suite = SUITE_TESTS ?? '';
const present = SUITE_TESTS !== undefined;
if (!present && process.env.CI) throw new Error('The JSON-Schema-Test-Suite must be present in CI');
if (!present) console.warn('SKIPPED: the JSON-Schema-Test-Suite corpus test (no suite found).');

const DRAFTS = {
  draft4: 'http://json-schema.org/draft-04/schema#',
  draft6: 'http://json-schema.org/draft-06/schema#',
  draft7: 'http://json-schema.org/draft-07/schema#',
  'draft2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft2020-12': 'https://json-schema.org/draft/2020-12/schema',
} as const;
type DraftDirectory = keyof typeof DRAFTS;

interface Group {
  file: string;
  description: string;
  schema: unknown;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
}

function groupsOf(draft: DraftDirectory): Group[] {
  const directory = `${suite}${draft}/`;
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) =>
      (JSON.parse(readFileSync(directory + file, 'utf8')) as Omit<Group, 'file'>[]).map((group) => ({
        file,
        ...group,
      })),
    );
}

/** A draft's schema as a user of that draft writes it: naming its draft. */
function withDraft(schema: unknown, draft: DraftDirectory): unknown {
  if (typeof schema !== 'object' || schema === null || '$schema' in schema) return schema;
  return { $schema: DRAFTS[draft], ...schema };
}

/**
 * A model that answers what it is told: the instance, inside `{ "value": … }` when the schema it was sent is the
 * gateway's wrapper of a root that is not an object.
 */
function answerFor(sent: any, callerSchema: any, data: unknown): string {
  const wrapper =
    sent?.required?.length === 1 &&
    sent.required[0] === 'value' &&
    sent.properties?.value !== undefined &&
    callerSchema?.properties?.value === undefined;
  return JSON.stringify(wrapper ? { value: data } : data);
}

/**
 * Why the gateway refuses a suite schema outright (a 400 before any call), for the refusals we chose: references to
 * other documents (the suite's `http://localhost:1234/…` remotes: no schema is fetched over the network), meta-schemas
 * of one's own, boolean root schemas (`response_format` takes an object, as OpenAI's does).
 */
function refusalReason(error: InvalidRequestError): string {
  if (error.param?.endsWith('.$ref') && error.message.includes('no remote')) return 'remote $ref';
  if (error.param?.endsWith('.$schema')) return 'unknown $schema';
  if (error.message.includes('must be a JSON Schema object')) return 'boolean root';
  return `ajv: ${error.message.replace('The JSON Schema is invalid: ', '')}`;
}

/**
 * The expected disagreements, each justified. Answers judged otherwise than the suite says, by where they are:
 * - formats are asserted (a model's malformed date is wrong), where 2019-09 and 2020-12 make `format` an annotation;
 * - ajv's known deviations: keywords beside `$ref` in drafts 4–7 are applied, `$dynamicRef`/`$recursiveRef` resolve
 *   statically, `unevaluated*` miss annotations from `if` and `contains`, a property named `__proto__` is not checked.
 */
const DISAGREEMENTS = [
  'format.json: ',
  'ref.json: ref overrides any sibling keywords',
  'ref.json: $ref prevents a sibling',
  'dynamicRef.json: ',
  'recursiveRef.json: ',
  'unevaluatedItems.json: ',
  'unevaluatedProperties.json: ',
  'properties.json: properties whose names are Javascript object property names: __proto__',
];
/**
 * Valid answers strict form cannot carry, by choice: a non-object where the schema is an object in all but name
 * (properties without a type), which the gateway asks the model for as an object.
 */
const INEXPRESSIBLE = [
  'properties.json: object properties validation: ignores',
  'properties.json: properties whose names are Javascript object property names: ignores',
  'ref.json: root pointer ref: ',
  // ajv (the test's own too) does not see a property named __proto__.
  'properties.json: properties whose names are Javascript object property names: ',
];
const expected = (where: string) => DISAGREEMENTS.some((prefix) => where.startsWith(prefix));
/** Schemas refused with a 400 by choice (see `refusalReason`) or because ajv cannot compile them. */
const REFUSALS = /^(remote \$ref|unknown \$schema|boolean root|ajv: .*)$/;

interface Tally {
  schemas: number;
  refused: Record<string, number>;
  validKept: number;
  validRefused: string[];
  invalidCaught: number;
  invalidPassed: string[];
  nullsDropped: number;
  /**
   * Valid instances of the schemas sent strict, as a strict-form model could send them: exactly (optional properties
   * as null), only without names the schema does not declare (objects are closed), or not at all.
   */
  expressible?: { exactly: number; withoutUndeclared: number; not: string[] };
  /** Schemas the fake OpenAI server got in strict mode. */
  sentStrict?: number;
}

const tallies: Record<string, Tally> = {};
afterAll(() => {
  if (present) console.log(`JSON-Schema-Test-Suite through the gateway:\n${JSON.stringify(tallies, null, 1)}`);
});

type Path = 'simulator (Claude)' | 'fake OpenAI (strict)';

async function runDraft(
  draft: DraftDirectory,
  path: Path,
  call: (request: any, data: unknown, test: { valid: boolean; where: string }) => Promise<any>,
) {
  const tally: Tally = {
    schemas: 0,
    refused: {},
    validKept: 0,
    validRefused: [],
    invalidCaught: 0,
    invalidPassed: [],
    nullsDropped: 0,
  };
  tallies[`${draft} / ${path}`] = tally;
  for (const group of groupsOf(draft)) {
    tally.schemas += 1;
    const schema = withDraft(group.schema, draft);
    const request = {
      model: path === 'fake OpenAI (strict)' ? 'gpt-4o-latest' : 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Answer.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'suite', schema } },
    };
    for (const test of group.tests) {
      const where = `${group.file}: ${group.description}: ${test.description}`;
      const outcome = await call(request, test.data, { valid: test.valid, where }).then(
        (response) => ({ response }),
        (error: unknown) => ({ error }),
      );
      if ('error' in outcome && outcome.error instanceof InvalidRequestError) {
        const reason = refusalReason(outcome.error);
        tally.refused[reason] = (tally.refused[reason] ?? 0) + 1;
        break;
      }
      if ('error' in outcome) {
        expect(outcome.error, `${where}: ${outcome.error}`).toBeInstanceOf(StructuredOutputError);
        if (test.valid) tally.validRefused.push(where);
        else tally.invalidCaught += 1;
        continue;
      }
      const content = outcome.response.choices[0].message.content;
      if (content === JSON.stringify(test.data)) {
        if (test.valid) tally.validKept += 1;
        else tally.invalidPassed.push(where);
      } else {
        // Only the strict path may change an answer: a null it made possible, dropped as "left out".
        expect(path, `${where}: ${content}`).toBe('fake OpenAI (strict)');
        expect(JSON.stringify(test.data), where).toContain('null');
        tally.nullsDropped += 1;
      }
    }
  }
  for (const reason of Object.keys(tally.refused)) expect(reason).toMatch(REFUSALS);
  expect(tally.invalidPassed.filter((where) => !expected(where))).toEqual([]);
  expect(tally.validRefused.filter((where) => !expected(where))).toEqual([]);
  return tally;
}

const server = await useFakeOpenAIServer();
const strictPath = gatewayAgainst(server.url, { retry: { maxRetries: 0 } });

describe.skipIf(!present)('the JSON-Schema-Test-Suite through response_format', () => {
  for (const draft of Object.keys(DRAFTS) as DraftDirectory[]) {
    it(`${draft}, on the simulator standing in for Claude`, async () => {
      let answer: (sent: unknown) => string = () => '';
      const mock = createMockProvider({ respond: (sent) => ({ content: answer(sent.output?.modelSchema) }) });
      const gateway = createGateway({ mock });
      const tally = await runDraft(draft, 'simulator (Claude)', (request, data) => {
        answer = (sent) => answerFor(sent, request.response_format.json_schema.schema, data);
        return gateway.createCompletion(request);
      });
      expect(tally.validKept).toBeGreaterThan(0);
    });

    it(`${draft}, through a fake OpenAI server on the strict path`, async () => {
      const strictSchemas = new Set<unknown>();
      const expressible = { exactly: 0, withoutUndeclared: 0, not: [] as string[] };
      const tally = await runDraft(draft, 'fake OpenAI (strict)', (request, data, test) => {
        const schema = request.response_format.json_schema.schema;
        server.respondWith = (body: any) => {
          const sent = body.response_format?.json_schema;
          const answer = answerFor(sent?.schema, schema, data);
          if (sent?.strict && !strictSchemas.has(schema)) strictSchemas.add(schema);
          if (sent?.strict && test.valid) {
            const form = strictFormOf(JSON.parse(answer), sent.schema);
            if (!independent.compile(sent.schema)(form.value)) expressible.not.push(`${test.where}: ${answer}`);
            else if (form.undeclared > 0) expressible.withoutUndeclared += 1;
            else expressible.exactly += 1;
          }
          return { content: answer };
        };
        return strictPath.createCompletion(request);
      });
      tally.sentStrict = strictSchemas.size;
      tally.expressible = expressible;
      expect(tally.validKept).toBeGreaterThan(0);
      expect(tally.sentStrict).toBeGreaterThan(0);
      expect(expressible.not.filter((where) => !INEXPRESSIBLE.some((prefix) => where.startsWith(prefix)))).toEqual([]);
    });
  }
});
