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

function collectAnchors(node: unknown, base: URL, anchors: Map<string, Schema>): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  const schema = node as Schema;
  const id = schema.$id ?? (schema as { id?: unknown }).id;
  if (typeof id === 'string' && id !== '') {
    const resolved = new URL(id, base);
    if (resolved.hash.length > 1) anchors.set(resolved.href, schema);
    else {
      resolved.hash = '';
      base = resolved;
    }
  }
  if (typeof schema.$anchor === 'string' && schema.$anchor !== '')
    anchors.set(new URL(`#${schema.$anchor}`, base).href, schema);
  for (const [key, value] of Object.entries(schema)) {
    if (ignoredKeyword[key]) continue;
    if (Array.isArray(value)) {
      if (schemaArrayKeyword[key]) for (const item of value) collectAnchors(item, base, anchors);
    } else if (schemaMapKeyword[key] && typeof value === 'object' && value !== null) {
      for (const child of Object.values(value)) collectAnchors(child, base, anchors);
    } else collectAnchors(value, base, anchors);
  }
}
