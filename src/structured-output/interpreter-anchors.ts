import {
  ignoredKeyword,
  initialBaseURI,
  type Schema,
  schemaArrayKeyword,
  schemaMapKeyword,
} from '@cfworker/json-schema';

type Lookup = Record<string, Schema | boolean>;

/**
 * An anchor belongs to the schema resource it is written in (2020-12 core, 8.2.2). The interpreter files each
 * `$anchor` under the base URI of every resource it walks it from, so an embedded resource's anchor (a subschema with
 * its own `$id`) is also filed under the enclosing resource, where it can take the place of that resource's own
 * anchor of the same name. This files every anchor (and each `$id: "#name"` of drafts 4–7) under its own resource
 * only, walking the schema as the interpreter does, and removes the other entries.
 */
export function fileAnchorsByResource(root: Schema, lookup: Lookup): void {
  const anchors = new Map<string, Schema>();
  collectAnchors(root, new URL(initialBaseURI.href), anchors);
  for (const uri of Object.keys(lookup)) if (isAnchorURI(uri) && !anchors.has(uri)) delete lookup[uri];
  for (const [uri, schema] of anchors) lookup[uri] = schema;
}

/** A URI whose fragment names a place (`…#name`) rather than a JSON pointer (`…#/$defs/a`). */
function isAnchorURI(uri: string): boolean {
  const hash = uri.indexOf('#');
  return hash >= 0 && hash < uri.length - 1 && uri[hash + 1] !== '/';
}

function collectAnchors(root: Schema, base: URL, anchors: Map<string, Schema>): void {
  walkSchemas(root, base, (schema, _resource, schemaBase) => {
    const id = schema.$id ?? (schema as { id?: unknown }).id;
    if (typeof id === 'string' && id !== '') {
      const resolved = new URL(id, schemaBase);
      if (resolved.hash.length > 1) anchors.set(resolved.href, schema);
    }
    if (typeof schema.$anchor === 'string' && schema.$anchor !== '')
      anchors.set(new URL(`#${schema.$anchor}`, schemaBase).href, schema);
  });
}

/**
 * Visits every subschema where the interpreter finds them, with the schema resource it belongs to (the nearest
 * schema at or above it with an `$id` that is not a fragment, else the root) and that resource's base URI.
 */
export function walkSchemas(
  node: unknown,
  base: URL,
  visit: (schema: Schema, resource: Schema, base: URL) => void,
  resource?: Schema,
): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  const schema = node as Schema;
  const id = schema.$id ?? (schema as { id?: unknown }).id;
  if (typeof id === 'string' && id !== '') {
    const resolved = new URL(id, base);
    if (resolved.hash.length <= 1) {
      resolved.hash = '';
      base = resolved;
      resource = schema;
    }
  }
  resource ??= schema;
  visit(schema, resource, base);
  for (const [key, value] of Object.entries(schema)) {
    if (ignoredKeyword[key]) continue;
    if (Array.isArray(value)) {
      if (schemaArrayKeyword[key]) for (const item of value) walkSchemas(item, base, visit, resource);
    } else if (schemaMapKeyword[key] && typeof value === 'object' && value !== null) {
      for (const child of Object.values(value)) walkSchemas(child, base, visit, resource);
    } else walkSchemas(value, base, visit, resource);
  }
}
