import { fromPattern } from '../internal/example-from-pattern.ts';
import { compileSchema, type SchemaValidator } from './json-schema-validator.ts';
import { exclusiveBoundsAsNumbers, resolveRef as resolveLocalRef } from './schema-shape.ts';

type Schema = Record<string, any>;

/** Format examples; `n` varies them so that `uniqueItems` arrays of formatted strings stay unique. */
const FORMATS: Record<string, (n: number) => string> = {
  'date-time': (n) => `${FORMATS.date!(n)}T09:00:00Z`,
  date: (n) => `2026-01-${String(1 + (n % 28)).padStart(2, '0')}`,
  time: (n) => `09:${String(n % 60).padStart(2, '0')}:00Z`,
  duration: (n) => `P${n + 1}D`,
  email: (n) => `user${n || ''}@example.com`,
  hostname: (n) => `host${n || ''}.example.com`,
  uri: (n) => `https://example.com/${n || ''}`,
  'uri-reference': (n) => `/path/${n}`,
  uuid: (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  ipv4: (n) => `192.0.2.${1 + (n % 254)}`,
  ipv6: (n) => `2001:db8::${(n + 1).toString(16)}`,
};

/** From this nesting level on, optional properties are left out, arrays shrink to `minItems` and nullable values
 * become null, so recursive schemas end. */
const DEEP = 4;

interface Context {
  root: Schema;
  budget: number;
}

/**
 * A deterministic instance of a JSON Schema, used by the simulator to answer schema-constrained requests: `const`,
 * `enum`, then scalar `examples`/`default` that fit, then the smallest value meeting the constraints (simple string
 * patterns included). `oneOf` picks a branch whose value matches exactly one branch; `allOf` is merged.
 */
export function exampleFromSchema(schema: Schema, root: Schema = schema, depth = 0): unknown {
  const first = generate(schema, { root, budget: 20_000 }, depth, 0);
  if (schema !== root || depth > 0) return first;
  // Constraints the construction does not aim for (`not`, `uniqueItems` over objects, `dependencies`…): the next
  // variants are tried, and the first valid one answers.
  const validator = validatorFor(schema, schema);
  if (!validator || validator.validate(first)) return first;
  for (let variant = 1; variant < 8; variant += 1) {
    const next = generate(schema, { root, budget: 20_000 }, depth, variant);
    if (validator.validate(next)) return next;
  }
  return first;
}

/** `variant` asks for the n-th alternative value, so that array items differ (`uniqueItems`). */
function generate(raw: Schema | boolean, ctx: Context, depth: number, variant: number): unknown {
  if (typeof raw !== 'object' || raw === null || --ctx.budget < 0) return raw === false ? undefined : 'example';
  const schema = deref(raw, ctx.root);
  const deep = depth >= DEEP;
  if (Array.isArray(schema.allOf)) return generate(mergeAllOf(schema, ctx.root), ctx, depth, variant);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[variant % schema.enum.length];
  if (Array.isArray(schema.oneOf)) return pickOneOf(schema, ctx, depth, variant);
  if (Array.isArray(schema.anyOf))
    return generate(withBranch(schema, 'anyOf', preferred(schema.anyOf, ctx.root, deep)[0] ?? {}), ctx, depth, variant);

  const types: string[] = schema.type ? [schema.type].flat() : [inferType(schema)];
  if (deep && types.includes('null')) return null;
  const type = types.find((candidate) => candidate !== 'null') ?? 'null';
  // The author's own examples read best, but only scalars we can check against the constraints.
  const samples = [
    ...(Array.isArray(schema.examples) ? schema.examples : []),
    ...('default' in schema ? [schema.default] : []),
  ];
  if (samples[variant] !== undefined && fitsScalar(samples[variant], schema, type)) return samples[variant];
  switch (type) {
    case 'object':
      return object(schema, ctx, depth, variant);
    case 'array':
      return array(schema, ctx, depth, variant);
    case 'integer':
    case 'number':
      return number(schema, type === 'integer', variant);
    case 'boolean':
      return variant % 2 === 0;
    case 'null':
      return null;
    default:
      return string(schema, variant);
  }
}

function inferType(schema: Schema): string {
  if (schema.properties || schema.additionalProperties !== undefined || schema.required) return 'object';
  return schema.items || schema.prefixItems
    ? 'array'
    : 'minimum' in schema || 'maximum' in schema || 'multipleOf' in schema
      ? 'number'
      : 'string';
}

function object(schema: Schema, ctx: Context, depth: number, variant: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const required = new Set<string>(schema.required ?? []);
  for (const [key, property] of Object.entries<Schema>(schema.properties ?? {})) {
    if (!required.has(key) && depth >= DEEP - 1) continue;
    const value = generate(property, ctx, depth + 1, variant);
    if (value !== undefined) result[key] = value;
  }
  // Names from patternProperties, while shallow or as many as minProperties asks.
  const patterns = Object.entries<Schema>(schema.patternProperties ?? {});
  const patterned = Math.min(Math.max(schema.minProperties ?? 0, depth < DEEP - 1 ? 1 : 0), schema.maxProperties ?? 8);
  for (let index = 0; patterns.length > 0 && Object.keys(result).length < patterned && index < 16; index++) {
    const [pattern, property] = patterns[index % patterns.length]!;
    const name = fromPattern(pattern, 1, index);
    if (name !== undefined && !(name in result)) result[name] = generate(property, ctx, depth + 1, index);
  }
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const key of required) if (!(key in result)) result[key] = generate(extra ?? {}, ctx, depth + 1, variant);
  // A map (schema-valued additionalProperties) gets one entry while shallow, or as many as minProperties asks.
  const shallowEntry = extra && depth < DEEP - 1 ? Object.keys(result).length + 1 : 0;
  const wanted = Math.min(Math.max(schema.minProperties ?? 0, shallowEntry), schema.maxProperties ?? Infinity);
  for (let index = 0; extra && Object.keys(result).length < wanted && index < wanted + 8; index++) {
    const name = schema.propertyNames
      ? String(generate(schema.propertyNames, ctx, depth + 1, index))
      : `key_${index + 1}`;
    if (!(name in result)) result[name] = generate(extra, ctx, depth + 1, index);
  }
  return result;
}

function array(schema: Schema, ctx: Context, depth: number, variant: number): unknown[] {
  const prefix: Schema[] = schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : []);
  const rest = Array.isArray(schema.items) ? (schema.additionalItems ?? {}) : (schema.items ?? {});
  const wanted = Math.max(schema.minItems ?? 0, depth >= DEEP ? 0 : Math.max(1, prefix.length));
  const count = Math.min(wanted, schema.maxItems ?? Infinity, rest === false ? prefix.length : Infinity);
  // Item i asks for variant i (offset by the parent's): distinct items, so uniqueItems holds without a second pass.
  return Array.from({ length: count }, (_, index) =>
    index < prefix.length
      ? generate(prefix[index]!, ctx, depth + 1, variant)
      : generate(rest, ctx, depth + 1, variant + index),
  );
}

/** Walks up from the lower bound (down from an upper one) on the multipleOf grid; the variant-th fit wins. */
function number(draftSchema: Schema, integer: boolean, variant: number): number {
  const schema: Schema = exclusiveBoundsAsNumbers(draftSchema);
  const step: number | undefined = schema.multipleOf ?? (integer ? 1 : undefined);
  const low = schema.minimum ?? schema.exclusiveMinimum;
  const high = schema.maximum ?? schema.exclusiveMaximum;
  const start = low ?? (high !== undefined ? Math.min(0, high) : 0);
  const direction = low === undefined && high !== undefined ? -1 : 1;
  const first = step ? Math.ceil(Number((start / step).toPrecision(12))) * step : start;
  let found: number | undefined;
  for (let index = 0, hits = 0; index < 1000 && hits <= variant; index++) {
    // toPrecision: 7 * 0.01 is 0.07000000000000001, which is not a multiple of 0.01 for a validator.
    const value = Number((first + direction * index * (step ?? 1)).toPrecision(12));
    if (fitsNumber(value, schema) && (!integer || Number.isInteger(value))) [found, hits] = [value, hits + 1];
  }
  const middle = low !== undefined && high !== undefined ? (low + high) / 2 : start;
  return found ?? (integer ? Math.round(middle) : middle);
}

function string(schema: Schema, variant: number): string {
  const min = schema.minLength ?? 0;
  const generated = typeof schema.pattern === 'string' ? fromPattern(schema.pattern, min, variant) : undefined;
  if (generated !== undefined) return generated;
  if (FORMATS[schema.format]) return FORMATS[schema.format]!(variant);
  return (variant ? `example-${variant}` : 'example').padEnd(min, 'x').slice(0, schema.maxLength ?? Infinity);
}

function fitsScalar(value: unknown, schema: Schema, type: string): boolean {
  if (type === 'number' || type === 'integer')
    return typeof value === 'number' && fitsNumber(value, schema) && (type === 'number' || Number.isInteger(value));
  if (type !== 'string' || typeof value !== 'string') return type === 'boolean' && typeof value === 'boolean';
  const { minLength = 0, maxLength = Infinity, pattern } = schema;
  return (
    value.length >= minLength &&
    value.length <= maxLength &&
    (typeof pattern !== 'string' || new RegExp(pattern, 'u').test(value))
  );
}

function fitsNumber(value: number, schema: Schema): boolean {
  const { minimum, maximum, exclusiveMinimum: above, exclusiveMaximum: below, multipleOf } = schema;
  return !(
    value < minimum ||
    value > maximum ||
    (typeof above === 'number' && value <= above) ||
    (typeof below === 'number' && value >= below) ||
    (multipleOf && !Number.isInteger(value / multipleOf))
  );
}

/** oneOf: the first branch (in `preferred` order) whose value matches that branch and no other. */
function pickOneOf(schema: Schema, ctx: Context, depth: number, variant: number): unknown {
  const ordered = preferred(schema.oneOf, ctx.root, depth >= DEEP);
  const withOption = (option: Schema) => generate(withBranch(schema, 'oneOf', option), ctx, depth, variant);
  for (const option of ordered) {
    const value = withOption(option);
    // A branch that fails to compile on its own (say, a `$ref: "#"`) is assumed to match only itself.
    const matches = schema.oneOf.filter(
      (other: Schema) => validatorFor(other, ctx.root)?.validate(value) ?? other === option,
    ).length;
    if (matches === 1) return value;
  }
  return ordered[0] && withOption(ordered[0]);
}

/** The schema with one branch of its anyOf/oneOf chosen; merging the branch in keeps the sibling keywords. */
function withBranch(schema: Schema, key: 'anyOf' | 'oneOf', branch: Schema): Schema {
  const { [key]: _options, ...rest } = schema;
  return { ...rest, allOf: [...(rest.allOf ?? []), branch] };
}

/**
 * Branches in the order to try: null last normally; when deep, null first, then branches without `$ref`s (ends
 * recursion).
 */
function preferred(options: Schema[], root: Schema, deep: boolean): Schema[] {
  const weight = (option: Schema) =>
    deref(option, root).type === 'null' ? (deep ? 0 : 2) : deep && JSON.stringify(option).includes('$ref') ? 1.5 : 1;
  return [...options].sort((a, b) => weight(a) - weight(b));
}

const validators = new WeakMap<object, SchemaValidator | null>();

/** A branch validated on its own, with the root's `$schema` and definitions so that its `$ref`s resolve. */
function validatorFor(branch: Schema, root: Schema): SchemaValidator | undefined {
  if (typeof branch !== 'object' || branch === null) return undefined;
  if (!validators.has(branch)) {
    const context = Object.fromEntries(
      ['$schema', '$defs', 'definitions'].filter((key) => key in root).map((key) => [key, root[key]]),
    );
    let validator: SchemaValidator | null = null;
    try {
      validator = compileSchema({ ...branch, ...context });
    } catch {
      /* pickOneOf then judges by identity */
    }
    validators.set(branch, validator);
  }
  return validators.get(branch) ?? undefined;
}

/** Follows `$ref`s to the schema they name, keeping sibling keywords (2020-12 applies both). */
function deref(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
    const { $ref, ...siblings } = current;
    current = { ...resolveRef($ref, root), ...siblings };
  }
  return current;
}

/** allOf as one schema: properties merged (clashing ones as a nested allOf), required united, bounds tightened. */
function mergeAllOf(schema: Schema, root: Schema): Schema {
  const { allOf, ...merged } = schema as { allOf: Schema[] } & Schema;
  for (const raw of allOf) {
    const part = deref(raw, root);
    for (const [key, value] of Object.entries(Array.isArray(part.allOf) ? mergeAllOf(part, root) : part)) {
      if (key === 'properties') {
        merged.properties = { ...merged.properties };
        for (const [name, property] of Object.entries<Schema>(value)) {
          merged.properties[name] = merged.properties[name] ? { allOf: [merged.properties[name], property] } : property;
        }
      } else if (key === 'required') merged.required = [...new Set([...(merged.required ?? []), ...value])];
      else if (!(key in merged)) merged[key] = value;
      else if (/^(min|exclusiveMin)/.test(key)) merged[key] = Math.max(merged[key], value);
      else if (/^(max|exclusiveMax)/.test(key)) merged[key] = Math.min(merged[key], value);
    }
  }
  return merged;
}

function resolveRef(ref: string, root: Schema): Schema {
  return resolveLocalRef(ref, root) ?? {};
}
