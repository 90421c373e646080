import type { JsonSchema } from './json-schema-validator.ts';
import { isObjectSchema, isRecord, mergeAllOf } from './schema-shape.ts';

/** Keywords whose valid answers OpenAI's strict mode cannot express, or that it rejects. */
const OBSTACLES = [
  'not',
  'if',
  'patternProperties',
  'propertyNames',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'minProperties',
  'maxProperties',
];
/** Keywords whose values are subschemas, or maps or lists of them. */
const SCHEMA_VALUED = ['items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const TYPED_BY = ['type', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const'];

/**
 * Why OpenAI's strict form cannot take this schema without refusing answers the schema allows, or `undefined`.
 * Walks every subschema with an explicit stack: a schema deep or recursive cannot grow the call stack.
 */
export function strictObstacle(root: JsonSchema): string | undefined {
  const stack: Array<[node: unknown, path: string]> = [[root, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    const at = path || '(root)';
    if (typeof node === 'boolean') return `a "${node}" schema at ${at}`;
    if (!isRecord(node)) continue;
    const found = obstacleAt(node, root, at);
    if (found) return found;
    for (const key of SCHEMA_VALUED) {
      const child = node[key];
      if (Array.isArray(child))
        for (const [index, item] of child.entries()) stack.push([item, `${path}/${key}/${index}`]);
      else if (child !== undefined && !(child === false && key === 'additionalItems'))
        stack.push([child, `${path}/${key}`]);
    }
    for (const key of SCHEMA_MAPS) {
      if (isRecord(node[key]))
        for (const [name, child] of Object.entries(node[key])) stack.push([child, `${path}/${key}/${name}`]);
    }
    for (const key of SCHEMA_LISTS) {
      const list = node[key];
      if (Array.isArray(list))
        for (const [index, child] of list.entries()) stack.push([child, `${path}/${key}/${index}`]);
    }
  }
  return undefined;
}

function obstacleAt(node: JsonSchema, root: JsonSchema, at: string): string | undefined {
  // Even `unevaluatedProperties: false` counts: it admits the names other subschemas evaluate, which a closed
  // object in strict form would refuse.
  const keyword = OBSTACLES.find((name) => node[name] !== undefined);
  if (keyword) return `"${keyword}" at ${at}`;
  if (node.additionalProperties !== undefined && node.additionalProperties !== false)
    return `an open map at ${at} (additionalProperties ${JSON.stringify(node.additionalProperties).slice(0, 60)})`;
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#/') && node.$ref !== '#')
    return `a $ref by anchor or URI at ${at} ("${node.$ref}")`;
  if (node.allOf !== undefined && !mergeAllOf(node, root)) return `an allOf at ${at} that is not a merge of objects`;
  const properties = isRecord(node.properties) ? node.properties : {};
  const outside = Array.isArray(node.required)
    ? node.required.find((name) => !Object.hasOwn(properties, name))
    : undefined;
  if (outside !== undefined) return `required "${outside}" at ${at} is not among its properties`;
  if (!TYPED_BY.some((name) => node[name] !== undefined) && !isObjectSchema(node))
    return `a schema without a type at ${at} (any JSON value)`;
  return undefined;
}

/** OpenAI's documented strict-mode limits. */
const OPENAI_STRICT_LIMITS = {
  properties: 5_000,
  nesting: 10,
  stringChars: 120_000,
  enumValues: 1_000,
  largeEnum: { values: 250, chars: 15_000 },
} as const;

/** Which of OpenAI's strict-mode limits the rewritten schema passes, or `undefined`. */
export function overStrictLimits(strict: JsonSchema): string | undefined {
  const limits = OPENAI_STRICT_LIMITS;
  let properties = 0;
  let chars = 0;
  let enumValues = 0;
  let nesting = 0;
  const stack: Array<[node: unknown, objects: number]> = [[strict, 0]];
  while (stack.length > 0) {
    const [node, outer] = stack.pop()!;
    if (!isRecord(node)) continue;
    const objects = isRecord(node.properties) ? outer + 1 : outer;
    nesting = Math.max(nesting, objects);
    for (const key of ['properties', '$defs', 'definitions']) {
      if (!isRecord(node[key])) continue;
      const names = Object.keys(node[key]);
      if (key === 'properties') properties += names.length;
      chars += names.reduce((sum, name) => sum + name.length, 0);
      for (const child of Object.values(node[key])) stack.push([child, key === 'properties' ? objects : 0]);
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      const enumChars = node.enum.reduce(
        (sum: number, value) => sum + (typeof value === 'string' ? value.length : 0),
        0,
      );
      chars += enumChars;
      if (node.enum.length > limits.largeEnum.values && enumChars > limits.largeEnum.chars)
        return `an enum of ${node.enum.length} values and ${enumChars} characters (over ${limits.largeEnum.chars})`;
    }
    if (typeof node.const === 'string') chars += node.const.length;
    if (isRecord(node.items)) stack.push([node.items, objects]);
    if (Array.isArray(node.anyOf)) for (const child of node.anyOf) stack.push([child, objects]);
  }
  if (properties > limits.properties) return `${properties} properties (over ${limits.properties})`;
  if (nesting > limits.nesting) return `${nesting} levels of nested objects (over ${limits.nesting})`;
  if (chars > limits.stringChars) return `${chars} characters of names and values (over ${limits.stringChars})`;
  if (enumValues > limits.enumValues) return `${enumValues} enum values (over ${limits.enumValues})`;
  return undefined;
}
