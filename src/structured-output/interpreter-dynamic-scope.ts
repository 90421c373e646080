import { initialBaseURI, type Schema } from '@cfworker/json-schema';
import { walkSchemas } from './interpreter-anchors.ts';

type Lookup = Record<string, Schema | boolean>;

/**
 * The most objects written out for the scopes (four times the largest schema compiled, schema-limits.ts): resources
 * that refer to one another can be entered in as many orders of scope as they have subsets.
 */
const MAX_COPIED = 20_000;

/** A schema whose dynamic scopes would be written out past `MAX_COPIED` objects. */
export class TooManyScopesError extends Error {}
/**
 * The dynamic anchors in scope: each name bound to the outermost resource's schema of that `$dynamicAnchor`, and a
 * key naming the bindings (one scope object per key).
 */
interface Scope {
  readonly key: string;
  readonly anchors: ReadonlyMap<string, Schema>;
}

/**
 * 2020-12's `$dynamicRef` in the dynamic scope, which the interpreter does not keep: where the `$ref` it is also
 * written as (interpreter-engine.ts) lands on a schema with the same `$dynamicAnchor`, it goes instead to that
 * anchor of the outermost schema resource evaluation passed through. Which resources were passed through is known
 * from where evaluation is, so the schema is written out once per scope that reaches it: a copy of each schema
 * reached in a scope (filed in the lookup under a name of its own), its `$ref`s pointing at the copies their targets
 * get in the scope they open. The copy of the root, or `undefined` where no `$dynamicRef` needs a scope.
 */
export function withDynamicScope(root: Schema, lookup: Lookup): Schema | undefined {
  const resourceOf = new Map<Schema, Schema>();
  const anchorsOf = new Map<Schema, Map<string, Schema>>();
  walkSchemas(root, new URL(initialBaseURI.href), (schema, resource) => {
    resourceOf.set(schema, resource);
    const name = (schema as { $dynamicAnchor?: unknown }).$dynamicAnchor;
    if (typeof name !== 'string') return;
    if (!anchorsOf.has(resource)) anchorsOf.set(resource, new Map());
    if (!anchorsOf.get(resource)!.has(name)) anchorsOf.get(resource)!.set(name, schema);
  });
  if (![...resourceOf.keys()].some((schema) => dynamicName(schema, lookup) !== undefined)) return undefined;

  const numbers = new Map<Schema, number>();
  const numberOf = (schema: Schema) => numbers.get(schema) ?? numbers.set(schema, numbers.size).get(schema)!;
  const scopes = new Map<string, Scope>();
  const entered = new Map<Scope, Map<Schema, Scope>>();
  const enter = (scope: Scope, resource: Schema | undefined): Scope => {
    const anchorsHere = resource && anchorsOf.get(resource);
    if (!anchorsHere) return scope;
    if (!entered.has(scope)) entered.set(scope, new Map());
    const known = entered.get(scope)!.get(resource);
    if (known) return known;
    const added = [...anchorsHere].filter(([name]) => !scope.anchors.has(name));
    let next = scope;
    if (added.length > 0) {
      const anchors = new Map([...scope.anchors, ...added]);
      const bound = [...anchors].map(([name, anchor]) => `${encodeURIComponent(name)}=${numberOf(anchor)}`).sort();
      const key = bound.join(',');
      next = scopes.get(key) ?? scopes.set(key, { key, anchors }).get(key)!;
    }
    entered.get(scope)!.set(resource, next);
    return next;
  };
  const pending: Array<[Schema, Scope, Schema]> = [];
  const copyIn = (schema: Schema, scope: Scope): string => {
    const key = `urn:switchyard:dynamic-scope:${scope.key}:${numberOf(schema)}`;
    if (lookup[key] === undefined) {
      const copy = {} as Schema;
      lookup[key] = copy;
      pending.push([schema, scope, copy]);
    }
    return key;
  };

  /** A value of the schema copied for a scope: a subschema with an `$id` opens its resource's scope. */
  let copied = 0;
  const copyValue = (value: unknown, scope: Scope): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if (++copied > MAX_COPIED)
      throw new TooManyScopesError(
        `its $dynamicRefs reach more than ${MAX_COPIED.toLocaleString('en')} subschemas across their dynamic scopes`,
      );
    if (Array.isArray(value)) return value.map((item) => copyValue(item, scope));
    const copy = {} as Schema;
    fill(value as Schema, scope, copy);
    return copy;
  };
  const fill = (schema: Schema, scope: Scope, copy: Schema) => {
    if (anchorsOf.has(schema) && resourceOf.get(schema) === schema) scope = enter(scope, schema);
    // Defined, not assigned: a property named "__proto__" stays a property.
    for (const [key, value] of Object.entries(schema))
      Object.defineProperty(copy, key, { value: copyValue(value, scope), enumerable: true, writable: true });
    const reference = schema.__absolute_ref__;
    if (reference === undefined) return;
    let target = lookup[reference];
    if (typeof target !== 'object') {
      Object.defineProperty(copy, '__absolute_ref__', { enumerable: false, value: reference });
      return;
    }
    const name = dynamicName(schema, lookup);
    if (name !== undefined && scope.anchors.has(name)) target = scope.anchors.get(name)!;
    const key = copyIn(target, enter(scope, resourceOf.get(target)));
    Object.defineProperty(copy, '__absolute_ref__', { enumerable: false, value: key });
  };

  const start = copyIn(root, enter({ key: '', anchors: new Map() }, root));
  for (let next = pending.pop(); next; next = pending.pop()) fill(...next);
  return lookup[start] as Schema;
}

/**
 * The anchor a `$dynamicRef` looks for in the dynamic scope: its fragment, where the schema it statically points at
 * has a `$dynamicAnchor` of that name (else it is a plain `$ref`).
 */
function dynamicName(schema: Schema, lookup: Lookup): string | undefined {
  const written = (schema as { $dynamicRef?: unknown }).$dynamicRef;
  if (typeof written !== 'string' || schema.$ref !== written || schema.__absolute_ref__ === undefined) return undefined;
  const name = /#([^/].*)$/.exec(written)?.[1];
  const target = lookup[schema.__absolute_ref__];
  if (name === undefined || typeof target !== 'object') return undefined;
  return (target as { $dynamicAnchor?: unknown }).$dynamicAnchor === name ? name : undefined;
}
