import { interpreterEngine } from './interpreter-engine.ts';
import { loadMetaSchemas, refersToMetaSchema } from './meta-schemas.ts';
import { draftOf } from './schema-draft.ts';
import type { JsonSchema, SchemaEngine, SchemaValidator, SchemaValidatorSetting } from './schema-engine.ts';
import { schemaEngine } from './schema-engines.ts';
import { type SchemaFacts, schemaFacts } from './schema-facts.ts';

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
  setting: SchemaValidatorSetting = 'auto',
): SchemaValidator {
  const facts = schemaFacts(schema);
  const engine = schemaEngine(setting);
  if (setting !== 'auto' || engine.name !== 'ajv' || facts.compiled?.ajv)
    return compiledBy(engine, schema, facts, param);
  facts.uses = (facts.uses ?? 0) + 1;
  // A schema referring to a draft's meta-schema: ajv has them built in, the interpreter loads them (prepareSchemas).
  facts.refersToMetaSchema ??= refersToMetaSchema(schema);
  const hot = (facts.uses >= AJV_AFTER_USES && !facts.ajvRefused) || facts.refersToMetaSchema;
  if (!hot) {
    try {
      return compiledBy(interpreterEngine, schema, facts, param);
    } catch {
      // What the interpreter refuses is decided by ajv, as without tiers.
      return compiledBy(engine, schema, facts, param);
    }
  }
  try {
    const validator = compiledBy(engine, schema, facts, param);
    // Turned hot: the interpreter's copy is no longer asked for (a call holding it finishes with it).
    facts.compiled?.interpreter?.dispose();
    delete facts.compiled?.interpreter;
    return validator;
  } catch (error) {
    // What ajv refuses when the schema turns hot stays with the interpreter that took it.
    if (!facts.compiled?.interpreter) throw error;
    facts.ajvRefused = true;
    return facts.compiled.interpreter.validator;
  }
}

/**
 * Uses of one schema content that `auto` serves with the interpreter before ajv compiles it. Compiling with ajv costs
 * ~850 µs of CPU and validates in ~0.5 µs; the interpreter ~85 µs and ~12 µs (a 10-property schema, bench:
 * `node bench/schema-validators.ts`): ajv pays off after ~65 validations, and most schemas sent per request (built
 * from caller data, the tools of a one-off call) are never seen again. So a schema is interpreted until it is used
 * this often, as V8 tiers up hot functions. Both engines give stock ajv's verdict wherever stock ajv is right on the
 * JSON-Schema-Test-Suite (test/structured-output/validator-agreement.test.ts).
 */
export const AJV_AFTER_USES = 32;

/** The validator `engine` compiled of the schema, compiled now if it has not been. */
function compiledBy(engine: SchemaEngine, schema: JsonSchema, facts: SchemaFacts, param: string): SchemaValidator {
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
