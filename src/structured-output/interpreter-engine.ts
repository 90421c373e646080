import { type OutputUnit, type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema';
import { fileAnchorsByResource } from './interpreter-anchors.ts';
import { TooManyScopesError, withDynamicScope } from './interpreter-dynamic-scope.ts';
import { describeUnits } from './interpreter-errors.ts';
import { addStringFormats, withNumberFormats } from './interpreter-formats.ts';
import { loadedMetaSchemas, refersToMetaSchema } from './meta-schemas.ts';
import { invalidSchemaError, missingRefError } from './schema-compile-errors.ts';
import type { Draft } from './schema-draft.ts';
import type { SchemaEngine } from './schema-engine.ts';
import { wrongKeywordValue } from './schema-keyword-check.ts';

/** The interpreter's name for each draft; draft-06 is read as draft-07 (it differs only in what 07 added). */
const DRAFTS: Record<Draft, SchemaDraft> = {
  'draft-04': '4',
  'draft-06': '7',
  'draft-07': '7',
  '2019-09': '2019-09',
  '2020-12': '2020-12',
};

type Lookup = Record<string, Schema | boolean>;

/**
 * @cfworker/json-schema: walks the schema for every answer, with no code generation, so it runs where `new Function`
 * is forbidden (Cloudflare Workers, pages with a strict Content-Security-Policy). It works on its own copy of the
 * schema (it marks the objects it reads), checked here for what it would otherwise trip on while validating: a `$ref`
 * that does not resolve, a pattern that is not a regular expression.
 */
export const interpreterEngine: SchemaEngine = {
  name: 'interpreter',
  compile(schema, draft, param) {
    const wrong = wrongKeywordValue(schema, draft);
    if (wrong !== undefined) throw invalidSchemaError(wrong, param);
    const copy = JSON.parse(JSON.stringify(schema)) as Schema;
    const dynamic = draft === '2020-12' && resolveDynamicStatically(copy);
    addStringFormats();
    withNumberFormats(copy);
    let interpreter: Validator;
    try {
      interpreter = new Validator(copy, DRAFTS[draft], false);
    } catch (error) {
      throw invalidSchemaError((error as Error).message.replace(/\.$/, ''), param);
    }
    const lookup = (interpreter as unknown as { lookup: Lookup }).lookup;
    fileAnchorsByResource(copy, lookup);
    if (refersToMetaSchema(copy)) addMetaSchemas(interpreter, lookup, draft);
    checkCompilable(schema, lookup, param);
    const root = (dynamic && scoped(copy, lookup, param)) || copy;
    (interpreter as unknown as { schema: Schema }).schema = root;
    let errors: readonly OutputUnit[] = [];
    return {
      validator: {
        validate: (value) => {
          const result = interpreter.validate(value);
          errors = result.errors;
          return result.valid;
        },
        errors: () => describeUnits(errors, (location) => valueAt(root, lookup, location)),
      },
      dispose: () => {},
    };
  },
};

/**
 * The draft's meta-schemas, where the schema refers to one and they are loaded (`prepareSchemas`, before compiling):
 * ajv has them built in. Each is a fresh copy, since the interpreter marks what it reads; one the schema itself
 * declares (an `$id` of the same URI) is left as the schema has it.
 */
function addMetaSchemas(interpreter: Validator, lookup: Lookup, draft: Draft): void {
  for (const meta of loadedMetaSchemas(draft)) {
    const id = (meta as { $id?: string; id?: string }).$id ?? (meta as { id?: string }).id ?? '';
    if (lookup[id.replace(/#$/, '')] !== undefined) continue;
    const copy = JSON.parse(JSON.stringify(meta)) as Schema;
    if (draft === '2020-12') asRecursiveReferences(copy);
    interpreter.addSchema(copy);
  }
}

/** `withDynamicScope`, its limit a 400 naming the schema. */
function scoped(copy: Schema, lookup: Lookup, param: string): Schema | undefined {
  try {
    return withDynamicScope(copy, lookup);
  } catch (error) {
    if (error instanceof TooManyScopesError) throw invalidSchemaError(error.message, param);
    throw error;
  }
}

/** Every reference resolves inside the schema and every pattern compiles, as ajv insists when it compiles. */
function checkCompilable(schema: Schema, lookup: Lookup, param: string): void {
  for (const node of Object.values(lookup)) {
    if (typeof node !== 'object') continue;
    if (node.__absolute_ref__ !== undefined && lookup[node.__absolute_ref__] === undefined)
      throw missingRefError(schema, String(node.$ref), param);
    const recursive = node.__absolute_recursive_ref__;
    if (recursive !== undefined && lookup[recursive] === undefined)
      throw missingRefError(schema, String(node.$recursiveRef), param);
    const patterns = [node.pattern, ...Object.keys(node.patternProperties ?? {})];
    for (const pattern of patterns) {
      if (pattern === undefined) continue;
      try {
        new RegExp(pattern, 'u');
      } catch (error) {
        throw invalidSchemaError(`${(error as Error).message}`, param);
      }
    }
  }
}

/**
 * The value at one of the interpreter's keyword locations (`#/properties/a/$ref/pattern`): a path through the schema
 * that crosses each `$ref` to the schema it points at.
 */
function valueAt(root: Schema, lookup: Lookup, location: string): unknown {
  let node: unknown = root;
  for (const raw of location.replace(/^#\/?/, '').split('/')) {
    if (raw === '') continue;
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    const current = node as Schema | undefined;
    if (key === '$ref' && current?.__absolute_ref__) node = lookup[current.__absolute_ref__];
    else node = (current as Record<string, unknown> | undefined)?.[key];
  }
  return node;
}

/**
 * The interpreter knows 2019-09's `$recursiveRef` but not 2020-12's `$dynamicRef`, which it would skip: each is read
 * as the `$ref` it is written as (and each `$dynamicAnchor` as an `$anchor`), and those whose target bears the anchor
 * they name are then resolved in the dynamic scope (interpreter-dynamic-scope.ts). Whether there is any.
 */
function resolveDynamicStatically(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  let found = false;
  for (const child of Object.values(node)) found = resolveDynamicStatically(child) || found;
  if (Array.isArray(node)) return found;
  const schema = node as Schema;
  if (typeof schema.$dynamicAnchor === 'string' && schema.$anchor === undefined) schema.$anchor = schema.$dynamicAnchor;
  if (typeof schema.$dynamicRef === 'string' && schema.$ref === undefined) {
    schema.$ref = schema.$dynamicRef;
    found = true;
  }
  return found;
}

/**
 * 2020-12's meta-schemas extend one another through one dynamic anchor, `meta`, at each one's root, and refer back
 * with `$dynamicRef: "#meta"`: exactly 2019-09's `$recursiveAnchor`/`$recursiveRef: "#"`, which the interpreter
 * resolves in the dynamic scope (read statically, a vocabulary's subschemas would be checked by that vocabulary only).
 */
function asRecursiveReferences(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  for (const child of Object.values(node)) asRecursiveReferences(child);
  if (Array.isArray(node)) return;
  const schema = node as Schema & { $dynamicAnchor?: unknown; $dynamicRef?: unknown };
  if (typeof schema.$dynamicAnchor === 'string') {
    delete schema.$dynamicAnchor;
    schema.$recursiveAnchor = true;
  }
  if (typeof schema.$dynamicRef === 'string') {
    delete schema.$dynamicRef;
    schema.$recursiveRef = '#';
  }
}
