import { canonicalJson } from '../internal/canonical-json.ts';
import type { JsonSchema } from '../structured-output/json-schema-validator.ts';
import { isArraySchema, isObjectSchema, isRecord, resolveRef } from '../structured-output/schema-shape.ts';

/** Past this depth a schema is not compared further: bounds the walk over deep or recursive schemas. */
const MAX_DEPTH = 32;
/** Keywords whose meaning depends on every branch: such nodes are compared as wholes. */
const COMPOSITIONS = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else'] as const;

/**
 * What a consumer of answers valid against `before` could no longer rely on in answers valid against `after`: a
 * field removed, a field no longer required, a type or value that was impossible. Each break names its path
 * (`output.items[].price`). Adding fields or narrowing types breaks nothing. Nodes built with anyOf/oneOf/allOf
 * count as broken when they differ at all: which branch a consumer relies on cannot be told.
 */
export function outputSchemaBreaks(before: JsonSchema, after: JsonSchema): string[] {
  const breaks: string[] = [];
  compare({ before, after, path: 'output', depth: 0, roots: { before, after }, breaks });
  return breaks;
}

interface Walk {
  before: JsonSchema;
  after: JsonSchema;
  path: string;
  depth: number;
  roots: { before: JsonSchema; after: JsonSchema };
  breaks: string[];
}

function compare(walk: Walk): void {
  const before = dereference(walk.before, walk.roots.before);
  const after = dereference(walk.after, walk.roots.after);
  if (walk.depth > MAX_DEPTH || canonicalJson(before) === canonicalJson(after)) return;
  const { path, breaks } = walk;
  if (COMPOSITIONS.some((keyword) => keyword in before || keyword in after)) {
    breaks.push(`${path}: its anyOf/oneOf/allOf schema changed (only an identical one can be checked)`);
    return;
  }
  const typeBreak = typeChange(typesOf(before), typesOf(after));
  if (typeBreak) breaks.push(`${path}: ${typeBreak}`);
  const valueBreak = valueChange(allowedValues(before), allowedValues(after));
  if (valueBreak) breaks.push(`${path}: ${valueBreak}`);
  if (isObjectSchema(before) && isObjectSchema(after)) compareObjects(walk, before, after);
  if (isArraySchema(before) && isArraySchema(after) && isRecord(before.items) && isRecord(after.items))
    compare({ ...walk, before: before.items, after: after.items, path: `${path}[]`, depth: walk.depth + 1 });
}

function compareObjects(walk: Walk, before: JsonSchema, after: JsonSchema): void {
  const { path, breaks } = walk;
  const propertiesBefore = isRecord(before.properties) ? before.properties : {};
  const propertiesAfter = isRecord(after.properties) ? after.properties : {};
  const requiredAfter = new Set(Array.isArray(after.required) ? after.required : []);
  for (const name of Array.isArray(before.required) ? before.required : []) {
    if (typeof name === 'string' && !requiredAfter.has(name) && Object.hasOwn(propertiesAfter, name))
      breaks.push(`${path}.${name}: no longer required (answers may leave it out)`);
  }
  for (const [name, schema] of Object.entries(propertiesBefore)) {
    if (!Object.hasOwn(propertiesAfter, name)) {
      breaks.push(`${path}.${name}: removed`);
      continue;
    }
    const next = propertiesAfter[name];
    if (isRecord(schema) && isRecord(next))
      compare({ ...walk, before: schema, after: next, path: `${path}.${name}`, depth: walk.depth + 1 });
  }
}

/** Follows local `$ref`s (a few hops at most); a ref that names nothing is left as it is. */
function dereference(node: JsonSchema, root: JsonSchema): JsonSchema {
  let current = node;
  for (let hop = 0; hop < 8 && typeof current.$ref === 'string'; hop++) {
    const target = resolveRef(current.$ref, root);
    if (!target) break;
    const { $ref: _ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current;
}

/** The JSON types a node allows; `undefined` for any. */
function typesOf(schema: JsonSchema): Set<string> | undefined {
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.filter((type) => typeof type === 'string'));
  if (isObjectSchema(schema)) return new Set(['object']);
  if (isArraySchema(schema)) return new Set(['array']);
  // An enum or const alone allows the types of its values.
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  return values && new Set(values.map(jsonType));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeChange(before: Set<string> | undefined, after: Set<string> | undefined): string | undefined {
  if (!before) return undefined;
  const shown = (types: Set<string>) => [...types].sort().join(' | ');
  if (!after) return `its type changed from ${shown(before)} to any type`;
  const accepted = (type: string) => before.has(type) || (type === 'integer' && before.has('number'));
  const added = [...after].filter((type) => !accepted(type));
  return added.length > 0 ? `its type changed from ${shown(before)} to ${shown(after)}` : undefined;
}

/** The values `enum` or `const` allow, as canonical JSON; `undefined` when any value of the type is allowed. */
function allowedValues(schema: JsonSchema): Set<string> | undefined {
  if ('const' in schema) return new Set([canonicalJson(schema.const)]);
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map((value) => canonicalJson(value)));
  return undefined;
}

function valueChange(before: Set<string> | undefined, after: Set<string> | undefined): string | undefined {
  if (!before) return undefined;
  if (!after) return 'no longer limited to its enum values';
  const added = [...after].filter((value) => !before.has(value));
  return added.length > 0 ? `may now be ${added.join(', ')}` : undefined;
}
