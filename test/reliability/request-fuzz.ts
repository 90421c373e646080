import fc from 'fast-check';
import { anyCodePoint } from '../helpers/code-points.ts';

export { BASES } from './request-fuzz-bases.ts';

/**
 * The fuzzed requests of fuzz.test.ts, one table for both surfaces (in process and through `switchyard serve`):
 * valid chat-completion requests, one per feature area, and the mutations that land at random places in them (wrong
 * types, huge strings, deep nesting, unknown keys, odd Unicode, null, arrays for objects, NaN/Infinity, negative
 * numbers, prototype keys). Over HTTP a request is sent as `JSON.stringify` writes it, as any client would.
 */

export function nest(depth: number, array: boolean, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = array ? [value] : { a: value };
  return value;
}

const HUGE = 'x'.repeat(1_000_000);
const WEIRD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\uD800',
  '\uDFFF',
  'a\uD800b',
  '\u202Eevil',
  '\u200B\u200D\uFEFF',
  'e\u0301\u0301\u0301',
  '𝕳𝖊𝖑𝖑𝖔',
  '👩‍👩‍👧‍👦',
  '\r\n\r\ndata: [DONE]\n\n',
  '{{x}}',
  '{{ constructor }}',
  '{{__proto__}}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '../../etc/passwd',
  'openai/',
  '/',
  'mock/gpt-4o-latest',
  'switchyard/deployment/x',
  'deployment/',
  'a/b/c/d',
  '%00',
  'NaN',
  '-1',
];
/** Keys that must never reach Object.prototype, however a request carries them. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -1,
    -0,
    0,
    1e308,
    -1e308,
    2 ** 53 + 1,
    0.5,
    129,
    true,
    false,
  ),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.string({ unit: anyCodePoint, maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(...WEIRD_STRINGS),
  fc.constant(HUGE),
  fc
    .tuple(fc.integer({ min: 1, max: 1_000 }), fc.boolean(), fc.constantFrom<unknown>('x', null, 1, {}))
    .map(([depth, array, leaf]) => nest(depth, array, leaf)),
  fc
    .constantFrom(...PROTO_KEYS)
    .map((key) => JSON.parse(`{"${key}": {"polluted": "yes", "role": "user", "content": "x"}}`)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.constantFrom<unknown>(null, 'user', 1, {}, []), { maxLength: 4 }),
  fc.dictionary(
    fc.constantFrom(
      'role',
      'content',
      'type',
      'name',
      'text',
      'url',
      'json_schema',
      'schema',
      'function',
      'polluted',
      ...PROTO_KEYS,
    ),
    fc.constantFrom<unknown>(null, 'user', 'text', 1, {}, [], 'x'),
  ),
  fc.anything({ maxDepth: 2, withNullPrototype: true, withObjectString: true, stringUnit: anyCodePoint }),
);

export type Mutation = {
  at: number;
  op: 'replace' | 'delete' | 'add-key' | 'wrap-in-array' | 'array-to-object' | 'stringify';
  key: string;
  value: unknown;
};

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom(
    'replace',
    'replace',
    'replace',
    'delete',
    'add-key',
    'wrap-in-array',
    'array-to-object',
    'stringify',
  ),
  key: fc.oneof(
    fc.constantFrom(...PROTO_KEYS, 'unknown_field', 'role', 'content', 'type', 'x'),
    fc.string({ maxLength: 8 }),
  ),
  value: weirdValue,
});

/** Every place in a value where a mutation can land: [parent, key] pairs, plus the root. */
function places(root: Record<string, unknown>): Array<[Record<string, unknown> | unknown[], string | number]> {
  const found: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const visit = (node: unknown, depth: number) => {
    if (depth > 8 || typeof node !== 'object' || node === null) return;
    for (const key of Object.keys(node)) {
      found.push([node as Record<string, unknown>, Array.isArray(node) ? Number(key) : key]);
      visit((node as Record<string, unknown>)[key], depth + 1);
    }
  };
  visit(root, 0);
  return found;
}

/**
 * A deep copy that keeps null prototypes and odd keys, so that mutating the request never touches fast-check's values.
 */
function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const result = Object.create(Object.getPrototypeOf(value) === null ? null : Object.prototype) as Record<
    string,
    unknown
  >;
  for (const key of Object.keys(value)) {
    Object.defineProperty(result, key, {
      value: copy((value as Record<string, unknown>)[key]),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return result;
}

export function mutate(
  base: Record<string, unknown>,
  mutations: Mutation[],
): { request: Record<string, unknown>; log: string[] } {
  const request = copy(base) as Record<string, unknown>;
  const log: string[] = [];
  for (const { at, op, key, value: generated } of mutations) {
    const value = copy(generated);
    const spots = places(request);
    if (op === 'add-key' || spots.length === 0) {
      // Onto the root or onto any object inside, as an own property even for "__proto__".
      const objects = [
        request,
        ...spots
          .map(([parent, slot]) => (parent as Record<string | number, unknown>)[slot])
          .filter((node) => typeof node === 'object' && node !== null),
      ];
      const target = objects[at % objects.length] as Record<string, unknown>;
      Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
      log.push(`add ${JSON.stringify(key)}`);
      continue;
    }
    const [parent, slot] = spots[at % spots.length]!;
    const holder = parent as Record<string | number, unknown>;
    const current = holder[slot];
    log.push(`${op} ${String(slot)}`);
    if (op === 'replace') holder[slot] = value;
    else if (op === 'delete') {
      if (Array.isArray(parent)) parent.splice(slot as number, 1);
      else delete holder[slot];
    } else if (op === 'wrap-in-array') holder[slot] = [current];
    else if (op === 'array-to-object') holder[slot] = Array.isArray(current) ? { ...current } : current;
    else holder[slot] = safeStringify(current);
  }
  return { request, log };
}

export function describeError(error: unknown): string {
  return error instanceof Error
    ? (error.stack ?? String(error)).split('\n').slice(0, 4).join(' | ')
    : safeStringify(error);
}

export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}
