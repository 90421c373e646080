/**
 * The web build's JSON Schema validator (tsup.web.ts swaps it for json-schema-validator.ts): Workers and
 * CSP-strict pages forbid the code generation ajv compiles with, so schemas are interpreted by @cfworker/json-schema.
 *
 * PLACEHOLDER of issue 38 (h38-w): the minimal seam, so structured outputs validate in workerd and Chromium. The
 * eval-free validator of h38-v (its drafts, errors and limits) replaces this file's body at merge.
 */
import { type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema';
import type { JsonSchema, SchemaValidator } from './json-schema-validator.ts';
import { draftOf } from './schema-engines.ts';
import { schemaFacts } from './schema-facts.ts';

export type { JsonSchema, SchemaValidator } from './json-schema-validator.ts';

const DRAFTS: Record<ReturnType<typeof draftOf>, SchemaDraft> = {
  'draft-04': '4',
  'draft-06': '7',
  'draft-07': '7',
  '2019-09': '2019-09',
  '2020-12': '2020-12',
};

export function compileSchema(schema: JsonSchema, param = 'response_format.json_schema.schema'): SchemaValidator {
  const facts = schemaFacts(schema);
  if (!facts.compiled) {
    const validator = new Validator(schema as Schema, DRAFTS[draftOf(schema, param)], false);
    let errors: string[] = [];
    facts.compiled = {
      validator: {
        validate(value) {
          const result = validator.validate(value);
          errors = result.errors.map((unit) => `${unit.instanceLocation.replace(/^#/, '') || '/'} ${unit.error}`);
          return result.valid;
        },
        errors: () => errors,
      },
      dispose: () => undefined,
    };
  }
  return facts.compiled.validator;
}
