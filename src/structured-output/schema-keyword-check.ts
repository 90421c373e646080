import type { Draft } from './schema-draft.ts';

/**
 * The keyword values a schema must have for its draft, checked where ajv checks them against the draft's
 * meta-schema: what the interpreter would otherwise read as some other rule (`type: "strng"` matches nothing,
 * `minimum: "3"` compares as text). Returns where the first wrong value is and what it must be, or `undefined`.
 * Keywords the drafts do not define are left alone, as ajv leaves them (real schemas carry `x-…`, `tsType`).
 */
export function wrongKeywordValue(schema: unknown, draft: Draft): string | undefined {
  return check(schema, '', draft === 'draft-04');
}

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const isSchema = (value: unknown, draft04: boolean) =>
  (typeof value === 'object' && value !== null && !Array.isArray(value)) || (!draft04 && typeof value === 'boolean');
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const isNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

function exclusiveBound(value: unknown, draft04: boolean): string | undefined {
  if (draft04) return typeof value === 'boolean' ? undefined : 'true or false';
  return isNumber(value) ? undefined : 'a number';
}

/** Each keyword's rule: `undefined` when the value is right, else what it must be. */
const VALUE_RULES: Record<string, (value: unknown, draft04: boolean) => string | undefined> = {
  type: (value) => {
    const types = Array.isArray(value) ? value : [value];
    const known = types.every((type) => typeof type === 'string' && TYPES.has(type));
    return known && new Set(types).size === types.length ? undefined : 'a JSON type or a list of distinct ones';
  },
  required: (value, draft04) =>
    Array.isArray(value) && value.every((name) => typeof name === 'string') && (!draft04 || value.length > 0)
      ? undefined
      : 'a list of property names',
  enum: (value) => (Array.isArray(value) && value.length > 0 ? undefined : 'a non-empty list'),
  minimum: (value) => (isNumber(value) ? undefined : 'a number'),
  maximum: (value) => (isNumber(value) ? undefined : 'a number'),
  // Draft-04's exclusive bounds are flags on minimum/maximum; later drafts' are the bounds themselves.
  exclusiveMinimum: exclusiveBound,
  exclusiveMaximum: exclusiveBound,
  multipleOf: (value) => (isNumber(value) && (value as number) > 0 ? undefined : 'a number above 0'),
  minLength: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  maxLength: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  minItems: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  maxItems: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  minProperties: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  maxProperties: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  minContains: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  maxContains: (value) => (isCount(value) ? undefined : 'a whole number ≥ 0'),
  uniqueItems: (value) => (typeof value === 'boolean' ? undefined : 'true or false'),
  pattern: (value) => (typeof value === 'string' ? undefined : 'a regular expression'),
  format: (value) => (typeof value === 'string' ? undefined : 'a format name'),
  $ref: (value) => (typeof value === 'string' ? undefined : 'a URI reference'),
};

/** Keywords holding one schema, a list of schemas, or a map of names to schemas. */
const ONE = ['additionalProperties', 'additionalItems', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if'];
const ONE_MORE = ['then', 'else', 'contains', 'propertyNames'];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

function check(node: unknown, path: string, draft04: boolean): string | undefined {
  if (typeof node === 'boolean' && !draft04) return undefined;
  if (!isSchema(node, draft04)) return `${path || '(root)'} must be a schema (an object)`;
  const schema = node as Record<string, unknown>;
  for (const [keyword, rule] of Object.entries(VALUE_RULES)) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const wrong = rule(schema[keyword], draft04);
    if (wrong) return `${path}/${keyword} must be ${wrong}`;
  }
  const children: Array<[unknown, string]> = [];
  for (const keyword of [...ONE, ...ONE_MORE])
    if (Object.hasOwn(schema, keyword)) children.push([schema[keyword], `${path}/${keyword}`]);
  for (const keyword of LIST) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const list = schema[keyword];
    if (!Array.isArray(list) || list.length === 0) return `${path}/${keyword} must be a non-empty list of schemas`;
    for (const [index, child] of list.entries()) children.push([child, `${path}/${keyword}/${index}`]);
  }
  for (const keyword of MAP) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const map = schema[keyword];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) return `${path}/${keyword} must be an object`;
    for (const [name, child] of Object.entries(map)) children.push([child, `${path}/${keyword}/${name}`]);
  }
  if (Object.hasOwn(schema, 'items')) {
    const items = schema.items;
    if (!Array.isArray(items)) children.push([items, `${path}/items`]);
    else for (const [index, child] of items.entries()) children.push([child, `${path}/items/${index}`]);
  }
  for (const [child, at] of children) {
    // Draft-04 allows booleans only for additionalProperties and additionalItems.
    const wrong =
      /\/additional(Properties|Items)$/.test(at) && typeof child === 'boolean' ? undefined : check(child, at, draft04);
    if (wrong) return wrong;
  }
  return undefined;
}
