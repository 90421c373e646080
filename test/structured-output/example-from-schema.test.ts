import { describe, expect, it } from 'vitest';
import { exampleFromSchema } from '../../src/structured-output/example-from-schema.ts';
import { compileSchema, type JsonSchema } from '../../src/structured-output/json-schema-validator.ts';

/** The instance, after checking that it validates against its schema. */
function valid(schema: JsonSchema): any {
  const value = exampleFromSchema(schema);
  const validator = compileSchema(schema);
  expect(validator.validate(value), `${validator.errors().join('; ')}\n${JSON.stringify(value)}`).toBe(true);
  return value;
}
const object = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});
/** Nesting depth of a JSON value (a scalar is 0). */
const depthOf = (value: unknown): number =>
  typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

describe('exampleFromSchema', () => {
  it(
    'keeps simple answers simple: first enum value, lower bound, "example", one array item, optional fields ' +
      'included',
    () => {
      const schema = {
        type: 'object',
        properties: {
          capital: { type: 'string' },
          population: { type: 'integer', minimum: 0 },
          tags: { type: 'array', items: { enum: ['city', 'capital'] } },
        },
        required: ['capital'],
      };
      expect(valid(schema)).toEqual({ capital: 'example', population: 0, tags: ['city'] });
    },
  );

  it('is deterministic', () => {
    const schema = object({
      id: { type: 'string', format: 'uuid' },
      codes: { type: 'array', items: { type: 'string', pattern: '^[A-Z]{2}\\d{3}$' }, minItems: 3, uniqueItems: true },
    });
    expect(JSON.stringify(exampleFromSchema(schema))).toBe(JSON.stringify(exampleFromSchema(structuredClone(schema))));
  });

  describe('strings', () => {
    it.each([
      ['^[A-Z]{3}$'],
      ['^\\d{4}-\\d{2}$'],
      ['^INV-\\d{4,8}$'],
      ['^#[0-9a-fA-F]{6}$'],
      ['^(feat|fix|docs)(\\([a-z-]+\\))?!?: .+$'],
      ['^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$'],
      ['^(?:\\+\\d{1,3} )?\\d{6,}$'],
      ['^(?<year>\\d{4})-W(?<week>\\d{2})$'],
      ['^([01]\\d|2[0-3]):[0-5]\\d$'],
      ['^[\\w./-]+\\.ts$'],
      ['^[A-HJ-NPR-Z0-9]{17}$'],
      ['^(97[89])?\\d{9}[\\dX]$'],
      ['\\bID-\\d+'],
    ])('honours the pattern %s', (pattern) => {
      expect(new RegExp(pattern, 'u').test(valid(object({ value: { type: 'string', pattern } })).value)).toBe(true);
    });

    it('meets minLength with a pattern by repeating what may repeat', () => {
      const { slug } = valid(object({ slug: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', minLength: 6 } }));
      expect(slug).toBe('aaaaaa');
    });

    it('pads to minLength and cuts at maxLength', () => {
      expect(
        valid(object({ long: { type: 'string', minLength: 12 }, short: { type: 'string', maxLength: 3 } })),
      ).toEqual({ long: 'examplexxxxx', short: 'exa' });
    });

    it('prefers examples and defaults that fit, and skips those that do not', () => {
      const value = valid(
        object({
          currency: { type: 'string', pattern: '^[A-Z]{3}$', examples: ['usd', 'EUR'] },
          city: { type: 'string', examples: ['Lyon'] },
          code: { type: 'string', maxLength: 4, examples: ['TOO-LONG'] },
          retries: { type: 'integer', minimum: 0, default: 3 },
          ratio: { type: 'number', maximum: 1, examples: [1.5] },
        }),
      );
      expect(value).toEqual({ currency: 'AAA', city: 'Lyon', code: 'exam', retries: 3, ratio: 0 });
    });

    it('uses a realistic value per format', () => {
      const formats = ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname', 'duration'];
      const value = valid(object(Object.fromEntries(formats.map((format) => [format, { type: 'string', format }]))));
      expect(value.email).toBe('user@example.com');
      expect(value.uuid).toBe('00000000-0000-4000-8000-000000000000');
    });

    it('patterns it cannot generate (lookaheads): no throw, and a later variant that happens to match', () => {
      // The plain 'example' fails the lookahead; the next variant, 'example-1', has a digit and 8 characters.
      expect(exampleFromSchema(object({ password: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } }))).toEqual({
        password: 'example-1',
      });
    });
  });

  describe('numbers', () => {
    it.each([
      [{ type: 'number', minimum: 0.05, multipleOf: 0.01 }, 0.05],
      // 0.07 / 0.01 is 7.000000000000001 in floating point, so Ajv rejects 0.07 as a multiple of 0.01: skip to 0.08.
      [{ type: 'number', minimum: 0.07, multipleOf: 0.01 }, 0.08],
      [{ type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 }, 0.01],
      [{ type: 'integer', exclusiveMinimum: 0 }, 1],
      [{ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, 0.5],
      [{ type: 'integer', exclusiveMaximum: 0 }, -1],
      [{ type: 'integer', minimum: 12, multipleOf: 5 }, 15],
      [{ type: 'number', minimum: -1, maximum: 1, multipleOf: 0.05 }, -1],
      [{ type: 'integer', minimum: 100, maximum: 100000, multipleOf: 100 }, 100],
      [{ type: 'number', maximum: -5 }, -5],
    ])('%j gives %d', (schema, expected) => {
      expect(valid(object({ n: schema })).n).toBe(expected);
    });
  });

  describe('arrays', () => {
    it('makes uniqueItems arrays of enums, strings, formats, patterns and objects distinct', () => {
      const unique = (items: JsonSchema) => ({ type: 'array', items, minItems: 3, uniqueItems: true });
      const value = valid(
        object({
          enums: unique({ enum: ['a', 'b', 'c'] }),
          strings: unique({ type: 'string' }),
          ids: unique({ type: 'string', format: 'uuid' }),
          codes: unique({ type: 'string', pattern: '^[A-Z]{3}$' }),
          numbers: unique({ type: 'integer', minimum: 1 }),
          rows: unique(object({ name: { type: 'string' }, done: { type: 'boolean' } })),
        }),
      );
      expect(value.enums).toEqual(['a', 'b', 'c']);
      expect(value.codes).toEqual(['AAA', 'BBB', 'CCC']);
      expect(value.numbers).toEqual([1, 2, 3]);
    });

    it('respects minItems and maxItems', () => {
      expect(
        valid(
          object({
            a: { type: 'array', items: { type: 'integer' }, minItems: 4 },
            b: { type: 'array', items: { type: 'integer' }, maxItems: 0 },
          }),
        ),
      ).toEqual({ a: [0, 1, 2, 3], b: [] });
    });

    it('fills tuples (prefixItems with items: false)', () => {
      const position = {
        type: 'array',
        prefixItems: [
          { type: 'number', minimum: -180 },
          { type: 'number', minimum: -90 },
        ],
        items: false,
        minItems: 2,
      };
      expect(valid(object({ position })).position).toEqual([-180, -90]);
    });
  });

  describe('combinators', () => {
    it('oneOf: skips a branch whose value would also match another branch', () => {
      const recipient = {
        oneOf: [
          { type: 'string', format: 'email' },
          { type: 'string', minLength: 1 },
        ],
      };
      expect(valid(object({ recipient })).recipient).toBe('example');
    });

    it('oneOf: discriminated objects pick the first branch, merged with the sibling keywords', () => {
      const action = {
        type: 'object',
        properties: { note: { type: 'string' } },
        oneOf: [
          { properties: { tool: { const: 'search' }, query: { type: 'string' } }, required: ['tool', 'query'] },
          { properties: { tool: { const: 'reply' }, text: { type: 'string' } }, required: ['tool', 'text'] },
        ],
      };
      expect(valid(object({ action })).action).toEqual({ note: 'example', tool: 'search', query: 'example' });
    });

    it('anyOf and nullable types give the non-null option while shallow', () => {
      expect(
        valid(
          object({
            a: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 2 }] },
            b: { type: ['null', 'string'] },
          }),
        ),
      ).toEqual({ a: 2, b: 'example' });
    });

    it('allOf merges properties, required and bounds, through $refs', () => {
      const schema = {
        type: 'object',
        properties: {
          item: {
            allOf: [
              { $ref: '#/$defs/base' },
              { type: 'object', properties: { qty: { type: 'integer', minimum: 10 } }, required: ['qty'] },
            ],
            unevaluatedProperties: false,
          },
        },
        required: ['item'],
        $defs: {
          base: {
            type: 'object',
            properties: { sku: { type: 'string', maxLength: 20 }, qty: { type: 'integer', minimum: 0, maximum: 99 } },
            required: ['sku'],
          },
        },
      };
      expect(valid(schema).item).toEqual({ sku: 'example', qty: 10 });
    });

    it('allOf of two bounded strings keeps the tighter bounds', () => {
      expect(
        valid(object({ s: { allOf: [{ type: 'string', maxLength: 20, minLength: 2 }, { maxLength: 4 }] } })).s,
      ).toBe('exam');
    });
  });

  describe('$ref and recursion', () => {
    it('resolves $defs, draft-07 definitions, and keeps $ref siblings', () => {
      expect(
        valid({
          type: 'object',
          properties: { a: { $ref: '#/$defs/code', maxLength: 2 } },
          required: ['a'],
          $defs: { code: { type: 'string' } },
        }),
      ).toEqual({ a: 'ex' });
      const draft07 = {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { b: { $ref: '#/definitions/level' } },
        required: ['b'],
        definitions: { level: { enum: ['low', 'high'] } },
      };
      expect(valid(draft07)).toEqual({ b: 'low' });
    });

    it('ends a tree whose children array is required (minItems 0 once deep)', () => {
      const tree = {
        type: 'object',
        properties: { root: { $ref: '#/$defs/node' } },
        required: ['root'],
        $defs: {
          node: object({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }),
        },
      };
      const value = valid(tree);
      expect(value.root.children[0].children).toEqual([]);
      expect(depthOf(value)).toBeLessThanOrEqual(8);
    });

    it('ends comments-with-replies through optional fields, nullable anyOf, and $ref "#"', () => {
      const comment = {
        type: 'object',
        properties: { text: { type: 'string' }, replies: { type: 'array', items: { $ref: '#/$defs/comment' } } },
        required: ['text'],
        additionalProperties: false,
      };
      expect(
        depthOf(
          valid({
            type: 'object',
            properties: { thread: { $ref: '#/$defs/comment' } },
            required: ['thread'],
            $defs: { comment },
          }),
        ),
      ).toBeLessThanOrEqual(8);
      const list = {
        type: 'object',
        properties: { value: { type: 'integer' }, next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } },
        required: ['value', 'next'],
      };
      expect(depthOf(valid(list))).toBeLessThanOrEqual(8);
    });

    it('oneOf recursion prefers the branch without $refs once deep', () => {
      const entry = {
        oneOf: [
          object({ kind: { const: 'dir' }, entries: { type: 'array', items: { $ref: '#/$defs/entry' }, minItems: 1 } }),
          object({ kind: { const: 'file' }, size: { type: 'integer', minimum: 0 } }),
        ],
      };
      const value = valid({
        type: 'object',
        properties: { root: { $ref: '#/$defs/entry' } },
        required: ['root'],
        $defs: { entry },
      });
      expect(JSON.stringify(value)).toContain('"kind":"file"');
    });

    it('leaves optional properties out once deep, keeping required ones', () => {
      const level = (inner: JsonSchema): JsonSchema => ({
        type: 'object',
        properties: { id: { type: 'integer' }, note: { type: 'string' }, inner },
        required: ['id', 'inner'],
      });
      const value = valid(level(level(level(level({ type: 'string' })))));
      expect(value.note).toBe('example');
      expect(value.inner.inner.inner).toEqual({ id: 0, inner: 'example' });
    });
  });

  describe('objects', () => {
    it('adds no extra keys under additionalProperties: false, and fills maps from propertyNames', () => {
      const value = valid(
        object({
          closed: object({ a: { type: 'integer' } }),
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          translations: {
            type: 'object',
            propertyNames: { pattern: '^[a-z]{2}$' },
            additionalProperties: { type: 'string', minLength: 1 },
            minProperties: 3,
          },
        }),
      );
      expect(value.closed).toEqual({ a: 0 });
      expect(value.labels).toEqual({ key_1: 'example' });
      expect(Object.keys(value.translations)).toEqual(['aa', 'bb', 'cc']);
    });

    it('builds objects rather than trusting object-level examples', () => {
      expect(
        valid(object({ point: { ...object({ x: { type: 'number' } }), examples: [{ x: 'not a number' }] } })).point,
      ).toEqual({ x: 0 });
    });
  });
});
