import { loadMetaSchemas, refersToMetaSchema } from './meta-schemas.ts';
import { draftOf } from './schema-draft.ts';
import type { JsonSchema, SchemaValidator, SchemaValidatorSetting } from './schema-engine.ts';
import { schemaEngine } from './schema-engines.ts';
import { schemaFacts } from './schema-facts.ts';

export type { JsonSchema, SchemaValidator, SchemaValidatorSetting } from './schema-engine.ts';

/**
 * The validator of a JSON Schema, cached with the schema's other facts (schema-facts.ts): by object identity (apps
 * usually reuse one schema object), then by content, in one bounded cache that releases an evicted schema from its
 * engine too. The engine (`setting`: ajv, or the interpreter where code generation is forbidden; schema-engines.ts)
 * reads the schema in the draft its `$schema` names (2020-12 when it names none); `$id`/`id`, anchors and local
 * `$ref`s resolve. A schema that cannot be compiled (a remote `$ref`, an unknown draft, an invalid keyword value) is a
 * 400 naming why.
 */
export function compileSchema(
  schema: JsonSchema,
  param = 'response_format.json_schema.schema',
  setting?: SchemaValidatorSetting,
): SchemaValidator {
  const engine = schemaEngine(setting);
  const facts = schemaFacts(schema);
  facts.compiled ??= {};
  let compiled = facts.compiled[engine.name];
  if (!compiled) {
    compiled = engine.compile(schema, draftOf(schema, param), param);
    facts.compiled[engine.name] = compiled;
  }
  return compiled.validator;
}

/**
 * What compiling the schemas in `value` (a schema, or the parts of a request holding schemas) needs first, where that
 * is something to wait for: the interpreter has no meta-schema built in, and compiles synchronously, so the drafts'
 * meta-schemas are loaded before a schema that refers to one is compiled (`undefined`: nothing to wait for).
 */
export function prepareSchemas(value: unknown, setting?: SchemaValidatorSetting): Promise<void> | undefined {
  if (schemaEngine(setting).name !== 'interpreter' || !refersToMetaSchema(value)) return undefined;
  return loadMetaSchemas();
}
