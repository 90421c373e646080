import type { JsonSchema } from './json-schema-validator.ts';

/** Keywords OpenAI's strict mode rejects; their meaning moves into the description, and the answer is validated
 * against the original schema afterwards, so nothing is lost. */
const UNSUPPORTED = [
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'default',
  'examples',
  'contentEncoding',
  'contentMediaType',
  '$schema',
  '$id',
];
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

const cache = new WeakMap<object, JsonSchema>();

/**
 * The schema rewritten for OpenAI strict structured outputs (providers.md §1.6): every object closed with
 * `additionalProperties: false` and every property required (optional ones become nullable), `oneOf` as `anyOf`,
 * mergeable `allOf`s merged, and keywords strict mode rejects moved into `description`. Cached per schema object.
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  let strict = cache.get(schema);
  if (!strict) {
    strict = transform(schema, schema);
    cache.set(schema, strict);
  }
  return strict;
}

function transform(node: unknown, root: JsonSchema): JsonSchema {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node as JsonSchema;
  const input = mergeAllOf(node as JsonSchema, root);
  const recurse = (child: unknown) => transform(child, root);
  const output: JsonSchema = {};
  const moved: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(input)) {
    if (UNSUPPORTED.includes(key)) moved[key] = value;
    else if (key === 'format' && !STRICT_FORMATS.has(value as string)) moved[key] = value;
    else if (key === 'oneOf' || key === 'anyOf') output.anyOf = (value as unknown[]).map(recurse);
    else if (key === 'items') output.items = Array.isArray(value) ? { anyOf: value.map(recurse) } : recurse(value);
    else if (key === 'prefixItems') output.items = { anyOf: (value as unknown[]).map(recurse) };
    else if (key === '$defs' || key === 'definitions' || key === 'properties')
      output[key] = mapValues(value as JsonSchema, recurse);
    else if (key === 'additionalProperties' || key === 'required') continue;
    else output[key] = value;
  }
  delete moved.$schema;
  delete moved.$id;

  if (isObjectSchema(input)) {
    const properties = (output.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((input.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      if (!required.has(name)) properties[name] = nullable(property);
    }
    output.properties = properties;
    output.required = Object.keys(properties);
    output.additionalProperties = false;
    if (input.additionalProperties !== undefined && input.additionalProperties !== false)
      moved.additionalProperties = input.additionalProperties;
  }
  if (Object.keys(moved).length > 0) {
    const note = `Constraints: ${JSON.stringify(moved)}`;
    output.description = output.description ? `${output.description as string} ${note}` : note;
  }
  return output;
}

function isObjectSchema(schema: JsonSchema): boolean {
  if (Array.isArray(schema.type)) return schema.type.includes('object');
  return schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
}

/**
 * `allOf` of object schemas (what zod's `.and()` produces, or a `$ref` to a shared base) becomes one object;
 * anything else is left to the description.
 */
function mergeAllOf(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const listed = schema.allOf as JsonSchema[] | undefined;
  if (!Array.isArray(listed)) return schema;
  const parts = listed.map((part) =>
    typeof part.$ref === 'string' ? mergeAllOf(resolveRef(part.$ref, root), root) : part,
  );
  if (!parts.every(isObjectSchema)) return schema;
  const { allOf: _allOf, ...rest } = schema;
  return {
    ...rest,
    type: 'object',
    properties: Object.assign({}, rest.properties, ...parts.map((part) => part.properties)),
    required: [...((rest.required as string[]) ?? []), ...parts.flatMap((part) => (part.required as string[]) ?? [])],
  };
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

/**
 * Undoes the nullability strict mode added: drops `null` values of properties the original schema did not require
 * and does not allow to be null. Returns a new value when something was dropped.
 */
export function dropAddedNulls(value: unknown, schema: JsonSchema, root: JsonSchema = schema, depth = 0): unknown {
  if (depth > 32 || typeof schema !== 'object' || schema === null || typeof value !== 'object' || value === null)
    return value;
  if (typeof schema.$ref === 'string') return dropAddedNulls(value, resolveRef(schema.$ref, root), root, depth + 1);
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(options)) {
    // A union: follow the branch of the value's kind (for objects, the one that knows most of its keys).
    const branches = options.map((option) =>
      mergeAllOf(typeof option.$ref === 'string' ? resolveRef(option.$ref, root) : option, root),
    );
    const keys = Array.isArray(value) ? [] : Object.keys(value);
    const fitting = branches.filter((branch) =>
      Array.isArray(value) ? isArraySchema(branch) : isObjectSchema(branch),
    );
    const best = fitting.sort((a, b) => known(b, keys) - known(a, keys))[0];
    return best ? dropAddedNulls(value, best, root, depth + 1) : value;
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    return items && !Array.isArray(items) ? value.map((item) => dropAddedNulls(item, items, root, depth + 1)) : value;
  }
  const merged = mergeAllOf(schema, root);
  const properties = (merged.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((merged.required as string[] | undefined) ?? []);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (item === null && property && !required.has(key) && !allowsNull(property, root)) continue;
    result[key] = property ? dropAddedNulls(item, property, root, depth + 1) : item;
  }
  return result;
}

function isArraySchema(schema: JsonSchema): boolean {
  return (
    schema.type === 'array' ||
    (Array.isArray(schema.type) && schema.type.includes('array')) ||
    (schema.type === undefined && schema.items !== undefined)
  );
}

function known(schema: JsonSchema, keys: string[]): number {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return keys.filter((key) => key in properties).length;
}

function allowsNull(schema: JsonSchema, root: JsonSchema): boolean {
  if (typeof schema.$ref === 'string') return allowsNull(resolveRef(schema.$ref, root), root);
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(options) && options.some((option) => allowsNull(option, root));
}

function resolveRef(ref: string, root: JsonSchema): JsonSchema {
  let node: unknown = root;
  for (const segment of ref.replace(/^#\/?/, '').split('/').filter(Boolean))
    node = (node as JsonSchema | undefined)?.[segment];
  return (node as JsonSchema) ?? {};
}
