import { expect, it } from 'vitest';
import { compileSchema, type JsonSchema } from '../../src/structured-output/json-schema-validator.ts';

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
