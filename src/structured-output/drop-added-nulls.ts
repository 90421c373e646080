import type { JsonSchema } from './json-schema-validator.ts';
import { isArraySchema, isObjectSchema, isRecord, mergeAllOf, resolveRef, setOwn } from './schema-shape.ts';

/**
 * Undoes the nullability OpenAI's strict form added (see `toStrictJsonSchema`): drops the `null` of a property the
 * caller's schema neither requires nor allows to be null, because on that path a null is how the model says "left
 * out". Only an answer that came through the strict form is handed here; every other answer is validated as sent.
 * Returns a new value when something was dropped.
 */
export function dropAddedNulls(value: unknown, schema: JsonSchema, root: JsonSchema = schema): unknown {
  return drop(value, schema, root, 0);
}

function drop(value: unknown, schema: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > 64 || !isRecord(schema) || typeof value !== 'object' || value === null) return value;
  if (typeof schema.$ref === 'string') return drop(value, resolveRef(schema.$ref, root), root, depth + 1);
  const options = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(options)) {
    // A union: follow the branch of the value's kind (for objects, the one that knows most of its keys).
    const branches = options
      .map((option) => (isRecord(option) && typeof option.$ref === 'string' ? resolveRef(option.$ref, root) : option))
      .filter(isRecord)
      .map((option) => mergeAllOf(option, root))
      .filter((option): option is JsonSchema => option !== undefined);
    const keys = Array.isArray(value) ? [] : Object.keys(value);
    const fitting = branches.filter((branch) =>
      Array.isArray(value) ? isArraySchema(branch) : isObjectSchema(branch),
    );
    const best = fitting.sort((a, b) => known(b, keys) - known(a, keys))[0];
    return best ? drop(value, best, root, depth + 1) : value;
  }
  if (Array.isArray(value)) {
    const items = schema.items;
    return isRecord(items) ? value.map((item) => drop(item, items, root, depth + 1)) : value;
  }
  const merged = mergeAllOf(schema, root) ?? schema;
  const properties = (isRecord(merged.properties) ? merged.properties : {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(merged.required) ? (merged.required as string[]) : []);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && isRecord(property) && !required.has(key) && !allowsNull(property, root, 0)) continue;
    setOwn(result, key, property === undefined ? item : drop(item, property, root, depth + 1));
  }
  return result;
}

function known(schema: JsonSchema, keys: string[]): number {
  const properties = (isRecord(schema.properties) ? schema.properties : {}) as Record<string, unknown>;
  return keys.filter((key) => Object.hasOwn(properties, key)).length;
}

function allowsNull(schema: unknown, root: JsonSchema, depth: number): boolean {
  if (schema === true) return true;
  if (!isRecord(schema) || depth > 64) return false;
  if (typeof schema.$ref === 'string') return allowsNull(resolveRef(schema.$ref, root), root, depth + 1);
  if (schema.type === undefined && schema.enum === undefined && schema.const === undefined && !schema.anyOf)
    return !schema.oneOf && !schema.allOf;
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  const options = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  return Array.isArray(options) && options.some((option) => allowsNull(option, root, depth + 1));
}
