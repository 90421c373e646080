import { expect, it } from 'vitest';
import { createGateway, InvalidRequestError } from '../../src/index.ts';
import { compileSchema, type JsonSchema } from '../../src/structured-output/json-schema-validator.ts';
import { createMockProvider } from '../../src/testing/index.ts';

/** Both engines' verdicts on one value: the interpreter must give ajv's. */
function verdicts(schema: JsonSchema, value: unknown) {
  return Object.fromEntries(
    (['ajv', 'interpreter'] as const).map((engine) => [engine, compileSchema(schema, 's', engine).validate(value)]),
  );
}

// An anchor belongs to the schema resource it is written in (JSON Schema 2020-12, 8.2.2): the inner resource's
// "bigint" (its own $id) must not answer for the outer one's, whatever order the two are walked in.
it.each(['2019-09', '2020-12'])('a $ref to an anchor finds the one of its own resource (%s)', (draft) => {
  const schema = {
    $schema: `https://json-schema.org/draft/${draft}/schema`,
    $id: 'https://example.com/anchors/base.json',
    $ref: '#bigint',
    $defs: {
      bigint: { $anchor: 'bigint', maximum: 10 },
      smallint: { $id: 'https://example.com/anchors/inner/', $anchor: 'bigint', maximum: 2 },
    },
  };
  expect(verdicts(schema, 5)).toEqual({ ajv: true, interpreter: true });
  expect(verdicts(schema, 11)).toEqual({ ajv: false, interpreter: false });
  const inner = { ...schema, $ref: 'inner/#bigint' };
  expect(verdicts(inner, 5)).toEqual({ ajv: false, interpreter: false });
});

// The interpreter fetches nothing: the drafts' meta-schemas, which ajv has built in, are loaded when a request's
// schema refers to one, before it is compiled. Here through a gateway: a schema whose property must be a schema.
it.each([
  ['draft-07', 'http://json-schema.org/draft-07/schema#', 'definitions'],
  ['2020-12', 'https://json-schema.org/draft/2020-12/schema', '$defs'],
])('a $ref to the %s meta-schema validates answers with the interpreter as with ajv', async (_draft, uri, defs) => {
  let answer = '';
  const mock = createMockProvider({ respond: () => ({ content: answer }) });
  const schema = {
    $schema: uri,
    type: 'object',
    properties: { definition: { $ref: uri } },
    required: ['definition'],
  };
  for (const schemaValidator of ['ajv', 'interpreter'] as const) {
    const gateway = createGateway({ mock, schemaValidator });
    const ask = (content: string) => {
      answer = content;
      return gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'a schema' }],
        response_format: { type: 'json_schema', json_schema: { name: 'schema', schema } },
      });
    };
    const valid = await ask('{"definition":{"type":"integer","minimum":1}}');
    expect(JSON.parse(valid.choices[0]!.message.content!)).toEqual({ definition: { type: 'integer', minimum: 1 } });
    const invalid = ask('{"definition":{"type":"integer","minimum":"one"}}');
    await expect(invalid, schemaValidator).rejects.toMatchObject({
      validationErrors: [expect.stringContaining('/definition/minimum')],
    });
    // A subschema of a subschema: the meta-schema's vocabularies all apply again there (2020-12: its $dynamicRef).
    const nested = ask(`{"definition":{"${defs}":{"a":{"type":1}}}}`);
    await expect(nested, schemaValidator).rejects.toMatchObject({
      validationErrors: expect.arrayContaining([expect.stringContaining(`/definition/${defs}/a/type`)]),
    });
  }
});

// The formats ajv-formats adds for OpenAPI (and its ISO variants of time) that the interpreter does not know: each
// value judged as ajv judges it, and a failure worded as ajv words it.
it.each([
  ['int32', [1, -(2 ** 31), 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 1.5, 'text', null]],
  ['int64', [1, 2 ** 53, -7, 1.5, 0.1, 'text']],
  ['float', [1.5, 1, 'text']],
  ['double', [1e308, -0.5, true]],
  ['byte', ['', 'aGk=', 'aGVsbG8=', 'aGVsbG8', 'a===', 'not base64!', 'ab==\n!!', '!!\n\n', 3]],
  [
    'iso-time',
    ['12:00:00', '12:00:00Z', '12:00:00+0100', '12:00:00+01', '12:00:00.5-05:30', '24:00:00', '12:60:00', '23:59:60Z'],
  ],
  ['iso-time', ['12:00:00+24:00', '12:00', 'noon', '23:59:60+01:00', '00:59:60+01:00', '12:00:00+01:60']],
  [
    'iso-date-time',
    ['2024-02-29T12:00:00', '2024-02-29 12:00:00Z', '2023-02-29T12:00:00', '2024-13-01T00:00:00', '2024-01-01'],
  ],
  ['iso-date-time', ['2024-01-01T12:00:00T', '2024-01-01t23:59:60z', '2024-01-01T25:00:00', 'x2024-01-01T00:00:00']],
])('format %s: the interpreter judges %j as ajv does', (format, values) => {
  const schema = { type: 'object', properties: { value: { format } } };
  for (const value of values) {
    const [ajv, interpreter] = (['ajv', 'interpreter'] as const).map((engine) => {
      const validator = compileSchema(schema, 's', engine);
      return { valid: validator.validate({ value }), errors: validator.errors() };
    });
    expect(interpreter, `${format} ${JSON.stringify(value)}`).toEqual(ajv);
  }
});

it('a number format is checked where it is a keyword, not where it is data or a property name', () => {
  const schema = {
    type: 'object',
    properties: {
      fixed: { const: { format: 'int32' } },
      const: { format: 'int32' },
    },
  };
  for (const engine of ['ajv', 'interpreter'] as const) {
    const validator = compileSchema(schema, 's', engine);
    expect(validator.validate({ fixed: { format: 'int32' }, const: 1 }), engine).toBe(true);
    expect(validator.validate({ const: 1.5 }), engine).toBe(false);
    expect(validator.errors(), engine).toEqual(['/const must match format "int32"']);
  }
});

// 2020-12: a $dynamicRef whose target has the $dynamicAnchor it names goes to that anchor of the outermost resource
// evaluation passed through (here the root's "items", a string), not to the one beside it (any value). The suite's
// verdicts (dynamicRef.json), which ajv gives only for the invalid arrays: it sends every item to the list itself.
it('a $dynamicRef resolves in the dynamic scope, through intermediate resources', () => {
  const list = {
    $id: 'list',
    type: 'array',
    items: { $dynamicRef: '#items' },
    $defs: { items: { $dynamicAnchor: 'items' } },
  };
  const direct = {
    $id: 'https://example.com/dynamic/root',
    $ref: 'list',
    $defs: { foo: { $dynamicAnchor: 'items', type: 'string' }, list },
  };
  const intermediate = {
    ...direct,
    $id: 'https://example.com/dynamic/intermediate/root',
    $ref: 'middle',
    $defs: { ...direct.$defs, middle: { $id: 'middle', $ref: 'list' } },
  };
  for (const schema of [direct, intermediate]) {
    const validator = compileSchema(schema, 's', 'interpreter');
    expect(validator.validate(['a', 'b'])).toBe(true);
    expect(validator.validate(['a', 1])).toBe(false);
    expect(validator.errors()).toEqual(['/1 must be string']);
    expect(compileSchema(schema, 's', 'ajv').validate(['a', 1])).toBe(false);
  }
  // Without the root's anchor, the list's own (any value) is the outermost.
  const alone = { ...direct, $id: 'https://example.com/dynamic/alone/root', $defs: { list } };
  expect(compileSchema(alone, 's', 'interpreter').validate(['a', 1])).toBe(true);
});

// Resources that each bind a dynamic anchor of their own and refer to every other one can be entered in 2^n orders
// of scope: written out per scope, such a schema is refused (a 400) rather than grown without bound.
it('a schema whose dynamic scopes would not end is refused, not written out', () => {
  const count = 24;
  const names = Array.from({ length: count }, (_, i) => `r${i}`);
  const $defs = Object.fromEntries(
    names.map((name) => [
      name,
      {
        $id: name,
        $dynamicAnchor: name,
        anyOf: names.filter((other) => other !== name).map((other) => ({ $ref: other })),
        items: { $dynamicRef: `#${name}` },
      },
    ]),
  );
  const schema = { $id: 'https://example.com/scopes/root', $ref: 'r0', $defs };
  expect(() => compileSchema(schema, 's', 'interpreter')).toThrow(InvalidRequestError);
  expect(() => compileSchema(schema, 's', 'interpreter')).toThrow(/dynamic scope/);
});
