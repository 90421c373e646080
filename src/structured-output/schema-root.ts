import type { JsonSchema } from './json-schema-validator.ts';
import { isObjectSchema, isRecord, mergeAllOf, resolveRef, setOwn } from './schema-shape.ts';

/** The property a schema whose root is not an object is wrapped in for the model. */
export const WRAPPER_PROPERTY = 'value';

/** The schema the model is asked to answer, and whether it wraps the caller's. */
export interface ModelSchema {
  schema: JsonSchema;
  wrapped: boolean;
}

const DEFINITIONS = ['$defs', 'definitions'] as const;

/**
 * Every provider's structured output (and every prompt we write) wants an object at the root. A root that is an
 * object in all but name (`type: ["object"]`, properties without a type, an `allOf` of objects, a `$ref` to an
 * object) is given as that object; any other root (a union, an array, a scalar) is wrapped as
 * `{ "value": <schema> }` with its definitions lifted beside it, and the answer unwrapped (`unwrapAnswer`).
 */
export function modelSchemaOf(schema: JsonSchema): ModelSchema {
  if (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === 'object')
    return { schema: { ...schema, type: 'object' }, wrapped: false };
  if (schema.type === 'object') return { schema, wrapped: false };
  if (schema.type === undefined && isObjectSchema(schema))
    return { schema: { ...schema, type: 'object' }, wrapped: false };
  if (schema.type === undefined && schema.allOf !== undefined && mergeAllOf(schema, schema))
    return { schema, wrapped: false };
  const referred = typeof schema.$ref === 'string' && schema.type === undefined ? objectTarget(schema) : undefined;
  if (referred) return { schema: referred, wrapped: false };
  return { schema: wrap(schema), wrapped: true };
}

/** A root `{ "$ref": … }` naming an object schema, as that schema with the root's definitions beside it. */
function objectTarget(schema: JsonSchema): JsonSchema | undefined {
  const target = resolveRef(schema.$ref as string, schema);
  if (!target || target === schema || !isObjectSchema(target) || Object.keys(schema).some(isAssertion))
    return undefined;
  const { $ref: _ref, ...rest } = schema;
  const { $anchor: _anchor, $id: _id, ...object } = target;
  return { ...rest, ...object, type: 'object' };
}

/** Root keywords beside `$ref` other than definitions and annotations would constrain the answer further. */
function isAssertion(key: string): boolean {
  return !['$ref', '$schema', '$id', 'id', '$defs', 'definitions', 'title', 'description', '$comment'].includes(key);
}

function wrap(schema: JsonSchema): JsonSchema {
  const { $schema, $id: _id, id: _legacyId, ...inner } = schema;
  const lifted: JsonSchema = {};
  for (const key of DEFINITIONS) {
    if (inner[key] === undefined) continue;
    lifted[key] = inner[key];
    delete inner[key];
  }
  const value = rebaseRefs(inner) as JsonSchema;
  return {
    ...($schema === undefined ? {} : { $schema }),
    type: 'object',
    properties: { [WRAPPER_PROPERTY]: value },
    required: [WRAPPER_PROPERTY],
    additionalProperties: false,
    ...(rebaseRefs(lifted) as JsonSchema),
  };
}

/** Pointers into the old root now point under `properties.value`; pointers into its definitions stay. */
function rebaseRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebaseRefs);
  if (!isRecord(node)) return node;
  const result: JsonSchema = {};
  for (const [key, child] of Object.entries(node)) {
    if (key === '$ref' && typeof child === 'string') result.$ref = rebased(child);
    else setOwn(result, key, rebaseRefs(child));
  }
  return result;
}

function rebased(ref: string): string {
  if (ref === '#') return `#/properties/${WRAPPER_PROPERTY}`;
  if (!ref.startsWith('#/') || DEFINITIONS.some((key) => ref.startsWith(`#/${key}/`))) return ref;
  return `#/properties/${WRAPPER_PROPERTY}${ref.slice(1)}`;
}

/**
 * The caller's value out of a wrapped answer: `{ "value": X }` gives X. An answer that ignored the wrapper is left
 * as it is, to be validated as the caller's value.
 */
export function unwrapAnswer(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === WRAPPER_PROPERTY ? value[WRAPPER_PROPERTY] : value;
}
