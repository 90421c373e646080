import { expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
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
