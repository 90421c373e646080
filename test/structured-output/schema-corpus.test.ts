import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createGateway, StructuredOutputError, toStrictJsonSchema } from '../../src/index.ts';
import { compileSchema, type JsonSchema } from '../../src/structured-output/json-schema-validator.ts';
import { modelSchemaOf } from '../../src/structured-output/schema-root.ts';
import { planStrictSchema } from '../../src/structured-output/strict-json-schema.ts';
import { createMockProvider, exampleFromSchema } from '../../src/testing/index.ts';
import { sendJSON, startFakeHttpServer } from '../fake-servers/http.ts';

interface Fixture {
  name: string;
  description: string;
  schema: JsonSchema;
}

const directory = fileURLToPath(new URL('../fixtures/schemas/', import.meta.url));
const fixtures: Fixture[] = readdirSync(directory)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => JSON.parse(readFileSync(directory + file, 'utf8')) as Fixture);

// An Ajv of the test's own, so a mistake in the gateway's validator cannot hide a wrong answer.
const addFormats = ((ajvFormatsModule as unknown as { default?: unknown }).default ?? ajvFormatsModule) as (
  ajv: Ajv | Ajv2020,
) => unknown;
const ajv07 = new Ajv({ allErrors: true, strict: false });
const ajv2020 = new Ajv2020({ allErrors: true, strict: false });
// ajv-draft-04 is CommonJS with a default export.
const AjvDraft04Class = ((AjvDraft04 as unknown as { default?: typeof Ajv }).default ??
  AjvDraft04) as unknown as typeof Ajv;
const ajv04 = new AjvDraft04Class({ allErrors: true, strict: false });
addFormats(ajv04 as never);
addFormats(ajv07);
addFormats(ajv2020);
const independent = new Map<string, ValidateFunction>(
  fixtures.map(({ name, schema }) => [
    name,
    (/draft-04/.test(String(schema.$schema))
      ? ajv04
      : /draft-07/.test(String(schema.$schema))
        ? ajv07
        : ajv2020
    ).compile(schema),
  ]),
);
function expectValid(name: string, value: unknown): void {
  const validate = independent.get(name)!;
  expect(validate(value), `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(value)}`).toBe(
    true,
  );
}

const gateway = createGateway({ mock: true });
const models = gateway.listModels().data;
// Models without native structured outputs get the schema in the prompt.
const nativeModels = models.filter((model) => model.supports.structured_outputs);
// The prompt-reading fake below speaks OpenAI's chat shape, so these are the prompted models first served on it
// (Gemini's image model, also prompted, is on Google's own wire and not exercised here).
const NOT_OPENAI_SHAPED = new Set(['google', 'vertex', 'anthropic', 'bedrock']);
const onOpenAIShape = (model: (typeof models)[number]) => !NOT_OPENAI_SHAPED.has(model.providers[0]!.provider);
const promptedModels = models.filter((model) => !model.supports.structured_outputs && onOpenAIShape(model));
const promptedElsewhere = models.filter((model) => !model.supports.structured_outputs && !onOpenAIShape(model));
// OpenAI's family sends schemas in strict form; its answers are the only ones whose nulls may mean "left out".
const strictFormProviders = new Set([
  'openai',
  'azure',
  'mistral',
  'groq',
  'xai',
  'deepseek',
  'openrouter',
  'together',
  'fireworks',
]);
const strictModel = 'gpt-5.4-2026-03-05';
const messages = [{ role: 'user' as const, content: 'Extract the data from the attached document.' }];
const formatOf = ({ name, schema }: Fixture) => ({ type: 'json_schema' as const, json_schema: { name, schema } });

describe('the schema corpus', () => {
  it('has at least 55 schemas with unique names, some of them with roots that are not objects', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(55);
    expect(new Set(fixtures.map((fixture) => fixture.name)).size).toBe(fixtures.length);
    for (const fixture of fixtures) expect(fixture.description.length, fixture.name).toBeGreaterThan(10);
    expect(fixtures.filter((fixture) => fixture.schema.type !== 'object').length).toBeGreaterThanOrEqual(3);
  });

  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))(
    '%s compiles with compileSchema',
    (_name, fixture) => {
      expect(() => compileSchema(fixture.schema)).not.toThrow();
    },
  );
});

describe('every native-structured-output model answers every schema with a valid instance', () => {
  it('covers the catalog', () => {
    expect(nativeModels.length + promptedModels.length + promptedElsewhere.length).toBe(models.length);
    expect(promptedElsewhere.map((model) => model.id)).toEqual(['gemini-2.5-flash-image']);
    expect(nativeModels.length).toBeGreaterThan(models.length / 2);
  });

  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s', async (name, fixture) => {
    const format = formatOf(fixture);
    for (const model of nativeModels) {
      const response = await gateway.createCompletion({ model: model.id, messages, response_format: format });
      const message = response.choices[0]!.message;
      const value = JSON.parse(message.content!);
      expectValid(name, value);
      expect(message.parsed).toEqual(value);
      // A schema strict mode cannot express fully goes non-strict to OpenAI-style providers, and says so.
      const relaxed = planStrictSchema(fixture.schema).strict ? [] : ['strict_schema_relaxed'];
      const deprecated = model.deprecated_at || model.retires_at ? ['model_deprecated'] : [];
      expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual([
        ...deprecated,
        ...(strictFormProviders.has(model.providers[0]!.provider) ? relaxed : []),
      ]);
    }
  });

  // The simulator stands in for their provider on the same prompted path, and answers the schema too.
  it(`the simulator answers the ${promptedModels.length} models without native structured outputs too`, async () => {
    for (const model of promptedModels) {
      for (const fixture of fixtures) {
        const response = await gateway.createCompletion({
          model: model.id,
          messages,
          response_format: formatOf(fixture),
        });
        expectValid(fixture.name, JSON.parse(response.choices[0]!.message.content!));
      }
    }
  });
});

describe('the strict transform', () => {
  for (const fixture of fixtures) {
    const { name, schema } = fixture;

    it(`${name}: every object is closed and requires all its properties`, () => {
      // What is sent: a root that is not an object goes wrapped.
      const strict = toStrictJsonSchema(modelSchemaOf(schema).schema);
      const objects = [...objectSchemasIn(strict, '#')];
      expect(objects.length).toBeGreaterThan(0);
      for (const [path, object] of objects) {
        expect(object.additionalProperties, path).toBe(false);
        expect(object.required, path).toEqual(Object.keys((object.properties as object | undefined) ?? {}));
      }
      expect(() => compileSchema(strict)).not.toThrow();
    });

    it(`${name}: a strict-mode answer (optional fields as null) round-trips to a valid original`, async (context) => {
      if (!planStrictSchema(schema).strict) context.skip(`${name} goes non-strict: no added nulls`);
      const original = (
        await gateway.createCompletion({ model: strictModel, messages, response_format: formatOf(fixture) })
      ).choices[0]!.message.parsed;
      const strict = toStrictJsonSchema(schema);
      const strictAnswer = JSON.stringify(withAddedNulls(original, strict, strict));
      // `respond`, not `replies`: a retry would get the same answer, so only a real round trip passes.
      const mock = createMockProvider({ respond: () => strictAnswer });
      const response = await createGateway({ mock }).createCompletion({
        model: strictModel,
        messages,
        response_format: formatOf(fixture),
      });
      expect(response.switchyard.warnings).toEqual([]);
      const parsed = JSON.parse(response.choices[0]!.message.content!);
      expectValid(name, parsed);
      expect(response.choices[0]!.message.parsed).toEqual(parsed);
      // Nulls the original schema allows stay (they are valid answers); the rest of the data is unchanged.
      expect(withoutNullsAbsentFrom(parsed, original)).toEqual(original);
    });
  }
});

describe('broken answers scripted into the simulator', () => {
  const damages: Array<[string, (json: string, value: unknown) => string | undefined]> = [
    ['a json code fence', (json) => `\`\`\`json\n${json}\n\`\`\``],
    ['a bare code fence', (json) => `\`\`\`\n${json}\n\`\`\``],
    [
      'prose around the JSON',
      (json) => `Sure! Here is the extracted data:\n${json}\nLet me know if you need anything else.`,
    ],
    [
      'trailing commas',
      (_json, value) => JSON.stringify(value, null, 2).replace(/(["\d\]}el])\n(\s*[}\]])/g, '$1,\n$2'),
    ],
    ['single quotes', (json) => (/'|\\"/.test(json) ? undefined : json.replaceAll('"', "'"))],
    ['a truncated end', (json) => json.replace(/[}\]]+$/, '')],
  ];
  const scripted = fixtures.filter(({ name }) =>
    ['invoice_extraction', 'comment_thread', 'geo_feature_collection', 'cv_parsing', 'quiz_generation'].includes(name),
  );

  it.each(damages)('%s is repaired on the first answer', async (_label, damage) => {
    let repaired = 0;
    for (const fixture of scripted) {
      const value = exampleFromSchema(fixture.schema);
      const broken = damage(JSON.stringify(value), value);
      if (broken === undefined) continue;
      expect(() => JSON.parse(broken), fixture.name).toThrow();
      const mock = createMockProvider({ replies: [broken] });
      const response = await createGateway({ mock }).createCompletion({
        model: nativeModels[0]!.id,
        messages,
        response_format: formatOf(fixture),
      });
      // No retry warning: the repair, not the simulator's second (valid) answer, produced the content.
      expect(response.switchyard.warnings, fixture.name).toEqual([]);
      expectValid(fixture.name, JSON.parse(response.choices[0]!.message.content!));
      expect(response.choices[0]!.message.parsed).toEqual(value);
      repaired += 1;
    }
    expect(repaired).toBeGreaterThan(0);
  });

  it.each([
    ['a refusal in prose', 'I am sorry, but I cannot extract that information.'],
    ['a description instead of data', 'The invoice is from ACME and totals 120 euros, due next month.'],
    ['an empty answer', ''],
  ])('%s ends in StructuredOutputError', async (_label, prose) => {
    const fixture = fixtures.find(({ name }) => name === 'invoice_extraction')!;
    const mock = createMockProvider({ replies: [prose, prose] });
    const error = await createGateway({ mock })
      .createCompletion({ model: nativeModels[0]!.id, messages, response_format: formatOf(fixture) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(mock.calls).toHaveLength(2);
  });
});

/** Every object schema in a schema, with a JSON-pointer-like path: properties, items, combinators and definitions. */
function* objectSchemasIn(node: unknown, path: string): Generator<[string, JsonSchema]> {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* objectSchemasIn(item, `${path}/${index}`);
    return;
  }
  const schema = node as JsonSchema;
  if ([schema.type].flat().includes('object') || typeof schema.properties === 'object') yield [path, schema];
  for (const key of ['properties', '$defs', 'definitions']) {
    for (const [name, sub] of Object.entries((schema[key] as object | undefined) ?? {}))
      yield* objectSchemasIn(sub, `${path}/${key}/${name}`);
  }
  for (const key of ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'])
    yield* objectSchemasIn(schema[key], `${path}/${key}`);
}

/** What a strict-mode model sends: the same data, with every property the schema lists present (null when unused). */
function withAddedNulls(value: unknown, node: JsonSchema, root: JsonSchema): unknown {
  const schema = resolve(node, root);
  const branches = [schema, ...((schema.anyOf as JsonSchema[] | undefined) ?? [])].map((branch) =>
    resolve(branch, root),
  );
  if (Array.isArray(value)) {
    const items = branches.find((candidate) => candidate.items)?.items as JsonSchema | undefined;
    return value.map((item) => withAddedNulls(item, items ?? {}, root));
  }
  if (typeof value !== 'object' || value === null) return value;
  // The branch this object belongs to: it names every key the object has, and its consts agree.
  const branch = branches.find((candidate) => {
    const properties = (candidate.properties ?? {}) as Record<string, JsonSchema>;
    return (
      candidate.properties &&
      Object.entries(value).every(
        ([key, item]) => key in properties && (!('const' in properties[key]!) || properties[key]!.const === item),
      )
    );
  });
  if (!branch) return value;
  const properties = branch.properties as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.keys(properties).map((key) => [
      key,
      key in value ? withAddedNulls((value as Record<string, unknown>)[key], properties[key]!, root) : null,
    ]),
  );
}

/** `value` without the null-valued properties that `reference` does not have. */
function withoutNullsAbsentFrom(value: unknown, reference: unknown): unknown {
  if (Array.isArray(value))
    return value.map((item, index) => withoutNullsAbsentFrom(item, (reference as unknown[] | undefined)?.[index]));
  if (typeof value !== 'object' || value === null || typeof reference !== 'object' || reference === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => item !== null || key in reference)
      .map(([key, item]) => [key, withoutNullsAbsentFrom(item, (reference as Record<string, unknown>)[key])]),
  );
}

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  if (typeof schema.$ref !== 'string') return schema;
  let target: unknown = root;
  for (const segment of schema.$ref.slice(2).split('/')) target = (target as Record<string, unknown>)[segment];
  return resolve(target as JsonSchema, root);
}

/**
 * A model behind an OpenAI-compatible API that honours a JSON Schema only when it reads one in its prompt: it
 * answers with an instance of the schema it finds in a system message, and `{}` when there is none. Models
 * without native structured outputs must be served through the prompt, or their answers fail validation.
 */
async function startPromptReadingModel() {
  const requests: Array<Record<string, any>> = [];
  const server = await startFakeHttpServer((_request, response, body) => {
    requests.push(body);
    const system = (body.messages as Array<{ role: string; content: string }>)
      .filter((message) => message.role === 'system')
      .map((message) => message.content)
      .join('\n');
    const schemaText = system.slice(system.indexOf('\n{') + 1);
    let schema: unknown;
    try {
      schema = JSON.parse(schemaText);
    } catch {
      schema = undefined;
    }
    const content = JSON.stringify(schema ? exampleFromSchema(schema as JsonSchema) : {});
    sendJSON(response, 200, {
      id: 'chatcmpl-prompted',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  });
  return { ...server, requests };
}

describe("models without native structured outputs take the prompted path, through their providers' API", () => {
  it(`each of the ${promptedModels.length} models gets each schema in its prompt; answers are validated`, async () => {
    const model = await startPromptReadingModel();
    try {
      const family = [...new Set(promptedModels.map((entry) => entry.providers[0]!.provider))];
      const real = createGateway({
        env: {},
        retry: { maxRetries: 0 },
        providers: Object.fromEntries(family.map((name) => [name, { apiKey: `key-${name}`, baseURL: model.origin }])),
      });
      for (const entry of promptedModels) {
        for (const fixture of fixtures) {
          const before = model.requests.length;
          const response = await real.createCompletion({
            model: entry.id,
            messages,
            response_format: formatOf(fixture),
          });
          const sent = model.requests[before]!;
          expect(sent.response_format?.type, `${entry.id}: JSON mode, never a schema it cannot enforce`).toBe(
            'json_object',
          );
          expect(
            sent.messages.some(
              (message: { role: string; content: string }) =>
                message.role === 'system' &&
                message.content.includes(JSON.stringify(modelSchemaOf(fixture.schema).schema)),
            ),
            entry.id,
          ).toBe(true);
          expectValid(fixture.name, JSON.parse(response.choices[0]!.message.content!));
        }
      }
    } finally {
      await model.close();
    }
  });
});
