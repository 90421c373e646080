import { describe, expect, it } from 'vitest';
import { toStrictJsonSchema } from '../../src/index.ts';
import { dropAddedNulls } from '../../src/structured-output/drop-added-nulls.ts';
import { parseModelJson } from '../../src/structured-output/parse-model-json.ts';

describe('toStrictJsonSchema (OpenAI strict mode)', () => {
  it('closes objects, requires every property and makes optional ones nullable', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Full name' },
        age: { type: 'integer', minimum: 0 },
        role: { type: 'string', enum: ['admin', 'user'] },
        address: { type: 'object', properties: { city: { type: 'string' } } },
      },
      required: ['name'],
    };
    expect(toStrictJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Full name' },
        age: { type: ['integer', 'null'], minimum: 0 },
        role: { type: ['string', 'null'], enum: ['admin', 'user', null] },
        address: {
          type: ['object', 'null'],
          properties: { city: { type: ['string', 'null'] } },
          required: ['city'],
          additionalProperties: false,
        },
      },
      required: ['name', 'age', 'role', 'address'],
      additionalProperties: false,
    });
  });

  it('turns oneOf into anyOf, merges object allOf, and moves rejected keywords into the description', () => {
    const schema = {
      type: 'object',
      properties: {
        shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, description: 'Labels' },
        when: { type: 'string', format: 'uri', examples: ['https://a.example'] },
      },
      allOf: [{ type: 'object', properties: { extra: { type: 'boolean' } }, required: ['extra'] }],
      required: ['shape', 'tags', 'when'],
    };
    const strict = toStrictJsonSchema(schema) as any;
    expect(strict.properties.shape).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(strict.properties.tags).toEqual({
      type: 'array',
      items: { type: 'string' },
      description: 'Labels Constraints: {"uniqueItems":true}',
    });
    expect(strict.properties.when.description).toBe('Constraints: {"format":"uri","examples":["https://a.example"]}');
    expect(strict.properties.extra).toEqual({ type: 'boolean' });
    expect(strict.required).toEqual(['shape', 'tags', 'when', 'extra']);
    expect(strict).not.toHaveProperty('allOf');
  });

  it('keeps $defs and $ref recursion', () => {
    const schema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
      $defs: {
        node: {
          type: 'object',
          properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          required: ['value', 'children'],
        },
      },
    };
    const strict = toStrictJsonSchema(schema) as any;
    expect(strict.$defs.node.additionalProperties).toBe(false);
    expect(strict.$defs.node.properties.children.items).toEqual({ $ref: '#/$defs/node' });
  });

  it('is cached per schema object', () => {
    const schema = { type: 'object', properties: {} };
    expect(toStrictJsonSchema(schema)).toBe(toStrictJsonSchema(schema));
  });

  it('dropAddedNulls removes only the nulls strict mode introduced', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: ['string', 'null'] },
        c: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
      },
      required: ['c'],
    };
    expect(dropAddedNulls({ a: null, b: null, c: null, list: [{ x: null }] }, schema)).toEqual({
      b: null,
      c: null,
      list: [{}],
    });
  });
});

describe('parseModelJson', () => {
  it.each([
    ['plain JSON', '{"a":1}', { a: 1 }],
    ['code fence', 'Here you go:\n```json\n{"a": 1}\n```\nAnything else?', { a: 1 }],
    ['prose around', 'The answer is {"a": [1, 2]} as requested.', { a: [1, 2] }],
    ['trailing comma and single quotes', "{'a': 1, 'b': [1, 2,],}", { a: 1, b: [1, 2] }],
    ['truncated', '{"a": {"b": "text', { a: { b: 'text' } }],
    ['comments', '{\n  // the id\n  "id": 7\n}', { id: 7 }],
  ])('%s', (_label, text, value) => {
    expect(parseModelJson(text)?.value).toEqual(value);
  });

  it('gives up on text without JSON', () => {
    expect(parseModelJson('I am not able to answer that.')).toBeUndefined();
  });
});
