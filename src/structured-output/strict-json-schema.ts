import type { JsonSchema } from './json-schema-validator.ts';
import { schemaFacts } from './schema-facts.ts';
import { exclusiveBoundsAsNumbers, isObjectSchema, isRecord, mergeAllOf, setOwn } from './schema-shape.ts';
import { overStrictLimits, strictObstacle } from './strict-obstacles.ts';

/**
 * Keywords OpenAI's strict mode rejects; their meaning moves into the description. Removing a constraint only widens
 * what the model may send, and the answer is validated against the original schema afterwards, so nothing is lost.
 */
const MOVED = new Set([
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'minLength',
  'maxLength',
  'additionalItems',
  'default',
  'examples',
  'contentEncoding',
  'contentMediaType',
]);
/** Dropped outright: about the schema document itself, not the answer. */
const DROPPED = new Set(['$schema', '$id', 'id', '$anchor', '$comment', '$vocabulary', 'definitions_comment']);
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Whether a schema goes to OpenAI in strict mode, and in what form; or why it goes non-strict. */
export type StrictPlan = { strict: true; schema: JsonSchema } | { strict: false; reason: string };

/**
 * The strict-or-relax decision for one schema, cached with the schema's facts (by object, then by content:
 * schema-facts.ts). Strict mode constrains decoding to the rewritten schema, so it is used only when every answer the
 * caller's schema allows can be expressed in it (an open map, a `false` schema, `not`, `if`, an unmergeable `allOf`…
 * cannot) and the rewrite is within OpenAI's limits. Otherwise the caller's schema goes non-strict, and validation,
 * repair and the retry hold the answer to it.
 */
export function planStrictSchema(schema: JsonSchema): StrictPlan {
  const facts = schemaFacts(schema);
  if (!facts.strict) {
    const obstacle = strictObstacle(schema);
    if (obstacle) facts.strict = { strict: false, reason: obstacle };
    else {
      const rewritten = toStrictJsonSchema(schema);
      const over = overStrictLimits(rewritten);
      facts.strict = over ? { strict: false, reason: over } : { strict: true, schema: rewritten };
    }
  }
  return facts.strict;
}

const rewrites = new WeakMap<object, JsonSchema>();

/**
 * The schema rewritten for OpenAI strict structured outputs (a documented subset of JSON Schema): every object
 * closed with `additionalProperties: false` and every property required (optional ones become nullable), `oneOf` as
 * `anyOf`, tuples as item unions, mergeable `allOf`s merged, draft-04's boolean exclusive bounds as numbers, and
 * keywords strict mode rejects moved into `description`. Cached per schema object. `planStrictSchema` says whether to
 * use it.
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  let strict = rewrites.get(schema);
  if (!strict) {
    // Drafts 4 to 7 ignore the keywords beside a `$ref`; strict mode would apply them.
    const refAlone = /draft-0[4-7]\//.test(String(schema.$schema ?? ''));
    strict = transform(schema, schema, 0, refAlone);
    rewrites.set(schema, strict);
  }
  return strict;
}

function transform(node: unknown, root: JsonSchema, depth: number, refAlone: boolean): JsonSchema {
  // Depth is bounded by the request's schema limits; this guards direct callers of the exported rewrite.
  if (!isRecord(node) || depth > 128) return node as JsonSchema;
  if (refAlone && typeof node.$ref === 'string' && depth > 0) return { $ref: node.$ref };
  const input = mergeAllOf(node, root) ?? node;
  const recurse = (child: unknown) => transform(child, root, depth + 1, refAlone);
  const output: JsonSchema = {};
  const moved: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(exclusiveBoundsAsNumbers(input))) {
    if (DROPPED.has(key)) continue;
    if (MOVED.has(key) || (key === 'format' && !STRICT_FORMATS.has(value as string))) moved[key] = value;
    else if (key === 'oneOf' || key === 'anyOf') output.anyOf = (value as unknown[]).map(recurse);
    else if (key === 'items') output.items = Array.isArray(value) ? { anyOf: value.map(recurse) } : recurse(value);
    else if (key === 'prefixItems') output.items = { anyOf: (value as unknown[]).map(recurse) };
    else if (key === '$defs' || key === 'definitions' || key === 'properties')
      output[key] = isRecord(value) ? mapValues(value, recurse) : value;
    else if (key === 'additionalProperties' || key === 'required') continue;
    else setOwn(output, key, value);
  }

  if (isObjectSchema(input)) {
    const properties = (output.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((input.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      if (!required.has(name)) setOwn(properties, name, nullable(property));
    }
    output.type ??= 'object';
    output.properties = properties;
    output.required = Object.keys(properties);
    output.additionalProperties = false;
  }
  if (Object.keys(moved).length > 0) {
    const note = `Constraints: ${JSON.stringify(moved)}`;
    output.description = output.description ? `${output.description as string} ${note}` : note;
  }
  return output;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string')
    return schema.type === 'null'
      ? schema
      : {
          ...schema,
          type: [schema.type, 'null'],
          ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}),
        };
  if (Array.isArray(schema.type))
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

function mapValues(record: JsonSchema, mapper: (value: unknown) => JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, mapper(value)]));
}
