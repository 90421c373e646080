import type { JsonSchema } from './json-schema-validator.ts';

/** Plain JSON object (a schema node), not an array or null. */
export function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema for objects: `type: "object"` (alone or among others), or no type but object keywords. */
export function isObjectSchema(schema: JsonSchema): boolean {
  if (Array.isArray(schema.type)) return schema.type.includes('object');
  return (
    schema.type === 'object' ||
    (schema.type === undefined &&
      (isRecord(schema.properties) || Array.isArray(schema.required) || isRecord(schema.additionalProperties)))
  );
}

export function isArraySchema(schema: JsonSchema): boolean {
  return (
    schema.type === 'array' ||
    (Array.isArray(schema.type) && schema.type.includes('array')) ||
    (schema.type === undefined && schema.items !== undefined)
  );
}

/**
 * The node a local `$ref` names: a JSON pointer (`#/$defs/node`, `#` for the root), or an anchor (`#name`, found as
 * `$anchor`, or as a fragment `$id`/`id` in the older drafts). `undefined` when it names nothing here.
 */
export function resolveRef(ref: string, root: JsonSchema): JsonSchema | undefined {
  if (ref === '#' || ref.startsWith('#/')) {
    let node: unknown = root;
    for (const segment of ref.slice(2).split('/').filter(Boolean)) {
      const key = decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
      node = isRecord(node) || Array.isArray(node) ? (node as JsonSchema)[key] : undefined;
    }
    return isRecord(node) ? node : undefined;
  }
  if (ref.startsWith('#')) return findAnchor(ref.slice(1), root);
  return undefined;
}

function findAnchor(name: string, root: JsonSchema): JsonSchema | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isRecord(node)) {
      if (node.$anchor === name || node.$id === `#${name}` || node.id === `#${name}`) return node;
      stack.push(...Object.values(node));
    }
  }
  return undefined;
}

/**
 * `allOf` of object schemas (what zod's `.and()` produces, or a `$ref` to a shared base) as one object; `undefined`
 * when a part is not an object schema or refers back to one being merged (recursion is never followed twice).
 */
export function mergeAllOf(
  schema: JsonSchema,
  root: JsonSchema,
  merging = new Set<JsonSchema>(),
): JsonSchema | undefined {
  const listed = schema.allOf;
  if (!Array.isArray(listed)) return schema;
  if (merging.has(schema)) return undefined;
  merging.add(schema);
  const parts: JsonSchema[] = [];
  for (const part of listed) {
    const target = isRecord(part) && typeof part.$ref === 'string' ? resolveRef(part.$ref, root) : part;
    const merged = isRecord(target) ? mergeAllOf(target, root, merging) : undefined;
    if (!merged || !isObjectSchema(merged)) return undefined;
    parts.push(merged);
  }
  merging.delete(schema);
  const { allOf: _allOf, ...rest } = schema;
  return {
    ...rest,
    type: 'object',
    // Entries, not Object.assign: a property named "__proto__" must stay a property. A later part's wins.
    properties: Object.fromEntries(
      [rest.properties, ...parts.map((part) => part.properties)].flatMap((properties) =>
        Object.entries((properties ?? {}) as object),
      ),
    ),
    required: [...((rest.required as string[]) ?? []), ...parts.flatMap((part) => (part.required as string[]) ?? [])],
  };
}

/** Sets `key` as an own data property even when it is `__proto__` (which plain assignment takes as the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Draft-04 writes `exclusiveMinimum: true` beside `minimum`; later drafts (and OpenAI) take the bound as a number. */
export function exclusiveBoundsAsNumbers(schema: JsonSchema): JsonSchema {
  if (typeof schema.exclusiveMinimum !== 'boolean' && typeof schema.exclusiveMaximum !== 'boolean') return schema;
  const result = { ...schema };
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof result[exclusive] !== 'boolean') continue;
    if (result[exclusive] === true && typeof result[bound] === 'number') {
      result[exclusive] = result[bound];
      delete result[bound];
    } else delete result[exclusive];
  }
  return result;
}
