import type { OutputUnit } from '@cfworker/json-schema';
import { FORMAT_CHECK } from './interpreter-formats.ts';

/**
 * The interpreter's errors in the words ajv uses (`/items/0/price must be number`), so a model's correction reads the
 * same whichever engine checked its answer. The interpreter reports, besides the failures, the keywords that only
 * lead to one (`$ref`, `properties`, `items`: "a subschema had errors"); those are left out.
 */
export function describeUnits(units: readonly OutputUnit[], valueAt: (location: string) => unknown): string[] {
  const described: string[] = [];
  for (const unit of units) {
    const text =
      unit.keyword === 'pattern'
        ? `must match pattern "${valueAt(unit.keywordLocation)}"`
        : (formatChecked(unit, valueAt) ?? describeUnit(unit));
    if (text !== undefined) described.push(`${pathOf(unit.instanceLocation)} ${text}`);
  }
  return described;
}

/** Keywords whose error only says that one beneath them failed (reported on its own). */
const LEADS_ONLY = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  'dependentSchemas',
]);

/** What each failing keyword means, from the interpreter's message (it carries the keyword's values). */
const WORDING: Record<string, (error: string) => string | undefined> = {
  type: (error) => `must be ${quoted(error.replace(/^.*Expected /, '')).join(',')}`,
  required: (error) => `must have required property '${quoted(error)[0]}'`,
  additionalProperties: (error) => `must NOT have additional properties ("${quoted(error)[0]}")`,
  unevaluatedProperties: () => 'must NOT have unevaluated properties',
  unevaluatedItems: () => 'must NOT have unevaluated items',
  enum: () => 'must be equal to one of the allowed values',
  const: () => 'must be equal to constant',
  format: (error) => `must match format "${quoted(error)[0]}"`,
  minimum: (error) => `must be ${error.includes('or equal') ? '>' : '>='} ${lastNumber(error)}`,
  maximum: (error) => `must be ${error.includes('or equal') ? '<' : '<='} ${lastNumber(error)}`,
  exclusiveMinimum: (error) => `must be > ${lastNumber(error)}`,
  exclusiveMaximum: (error) => `must be < ${lastNumber(error)}`,
  multipleOf: (error) => `must be multiple of ${lastNumber(error)}`,
  minLength: (error) => `must NOT have fewer than ${lastNumber(error)} characters`,
  maxLength: (error) => `must NOT have more than ${lastNumber(error)} characters`,
  minItems: (error) => `must NOT have fewer than ${lastNumber(error)} items`,
  maxItems: (error) => `must NOT have more than ${lastNumber(error)} items`,
  minProperties: (error) => `must NOT have fewer than ${lastNumber(error)} properties`,
  maxProperties: (error) => `must NOT have more than ${lastNumber(error)} properties`,
  uniqueItems: (error) => {
    const [first, second] = error.match(/\d+/g) ?? [];
    return `must NOT have duplicate items (items ## ${first} and ${second} are identical)`;
  },
  anyOf: () => 'must match a schema in anyOf',
  oneOf: () => 'must match exactly one schema in oneOf',
  not: () => 'must NOT be valid',
  if: (error) => `must match "${error.includes('"else"') ? 'else' : 'then'}" schema`,
  contains: () => 'must contain at least 1 valid item(s)',
  minContains: (error) => error,
  maxContains: (error) => error,
  propertyNames: (error) => `property name '${quoted(error)[0]}' is invalid`,
  dependentRequired: dependency,
  dependencies: dependency,
  false: () => 'boolean schema is false',
};

/** A number format's check failing (interpreter-formats.ts) is the format not matched, as ajv says it. */
function formatChecked(unit: OutputUnit, valueAt: (location: string) => unknown): string | undefined {
  if (unit.keyword !== 'not') return undefined;
  const check = valueAt(unit.keywordLocation.replace(/\/not$/, '')) as Record<string, unknown> | undefined;
  const format = check?.[FORMAT_CHECK];
  return typeof format === 'string' ? `must match format "${format}"` : undefined;
}

function describeUnit(unit: OutputUnit): string | undefined {
  if (LEADS_ONLY.has(unit.keyword)) return undefined;
  // `additionalProperties: false` also reports each extra property as a false schema where the property is.
  if (unit.keyword === 'false' && unit.keywordLocation === unit.instanceLocation && unit.instanceLocation !== '#')
    return undefined;
  const wording = WORDING[unit.keyword];
  return wording?.(unit.error) ?? unit.error.replace(/\.$/, '');
}

/** The interpreter's instance location (`#/a%20b/0`, URI-encoded) as ajv's JSON Pointer (`/a b/0`), or `(root)`. */
function pathOf(location: string): string {
  const pointer = location.replace(/^#/, '');
  if (pointer === '') return '(root)';
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}

function dependency(error: string): string | undefined {
  const [present, missing] = quoted(error);
  if (error.includes('dependant schema')) return `must match the schema of property ${present} when it is present`;
  return `must have property ${missing} when property ${present} is present`;
}

function quoted(error: string): string[] {
  return [...error.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
}

/** The keyword's limit: the last number of the message (`String is too short (1 < 2).`). */
function lastNumber(error: string): string {
  return error.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi)?.at(-1) ?? '?';
}
