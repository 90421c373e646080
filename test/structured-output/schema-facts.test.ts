import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSchema } from '../../src/structured-output/json-schema-validator.ts';
import {
  checkOutput,
  type OutputSpec,
  resolveOutputSpec,
  schemaInstruction,
} from '../../src/structured-output/output-spec.ts';
import { parseModelJson } from '../../src/structured-output/parse-model-json.ts';
import { PARSE_VALUE, zodResponseFormat } from '../../src/structured-output/response-format.ts';
import {
  MAX_SCHEMA_FACTS,
  MAX_SCHEMA_FACTS_CHARS,
  schemaFacts,
  schemaFactsChars,
  schemaFactsSize,
} from '../../src/structured-output/schema-facts.ts';
import { assertSchemaLimits } from '../../src/structured-output/schema-limits.ts';
import { planStrictSchema } from '../../src/structured-output/strict-json-schema.ts';
import { checkToolCalls } from '../../src/structured-output/tool-arguments.ts';

// A server parses a fresh body per request: each request's schema is a new object with the same content.
const fresh = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const person = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name'],
  additionalProperties: false,
};

describe('schema facts, by content', () => {
  it('a schema with the same content shares its validator, strict plan and model schema', () => {
    const first = fresh(person);
    const second = fresh(person);
    assertSchemaLimits(first, 'p');
    assertSchemaLimits(second, 'p');
    expect(schemaFacts(second)).toBe(schemaFacts(first));
    expect(schemaFacts(first).withinLimits).toBe(true);
    expect(compileSchema(second)).toBe(compileSchema(first));
    expect(planStrictSchema(second)).toBe(planStrictSchema(first));
    // An unchanged model schema is each request's own object, never another request's.
    const spec = resolveOutputSpec({ type: 'json_schema', json_schema: { name: 'p', schema: second } })!;
    expect(spec.modelSchema).toBe(second);
  });

  it('a wrapped root is built once per content', () => {
    const list = { type: 'array', items: { type: 'string' } };
    const format = () => ({ type: 'json_schema', json_schema: { name: 'list', schema: fresh(list) } });
    const [first, second] = [resolveOutputSpec(format())!, resolveOutputSpec(format())!];
    expect(first.wrapped).toBe(true);
    expect(second.modelSchema).toBe(first.modelSchema);
    expect(checkOutput('{"value":["a"]}', second)).toEqual({ ok: true, content: '["a"]', parsed: ['a'] });
  });

  it('holds at most MAX_SCHEMA_FACTS contents, however many distinct schemas arrive', () => {
    for (let index = 0; index < MAX_SCHEMA_FACTS * 3; index++) {
      const schema = { type: 'object', properties: { [`field_${index}`]: { type: 'string' } } };
      assertSchemaLimits(schema, 'p');
      compileSchema(schema).validate({});
      planStrictSchema(schema);
      expect(schemaFactsSize()).toBeLessThanOrEqual(MAX_SCHEMA_FACTS);
    }
    expect(schemaFactsSize()).toBe(MAX_SCHEMA_FACTS);
    // An evicted schema's validator still works for the object that holds it, and its content compiles again.
    const again = { type: 'object', properties: { field_0: { type: 'string' } } };
    expect(compileSchema(again).validate({ field_0: 1 })).toBe(false);
  });

  it('holds at most MAX_SCHEMA_FACTS_CHARS of schema text: a few huge schemas cannot hold gigabytes', () => {
    const description = 'x'.repeat(1024 * 1024);
    for (let index = 0; index < 40; index++) {
      compileSchema({ type: 'string', description: `${index}${description}` }).validate('a');
      expect(schemaFactsChars()).toBeLessThanOrEqual(MAX_SCHEMA_FACTS_CHARS);
    }
    expect(schemaFactsSize()).toBeLessThan(10);
  });

  it('a schema over the limits is refused whether or not its content was seen, and cycles still fail by limit', () => {
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let level = 0; level < 100; level++) node = (node.items = {}) as Record<string, unknown>;
    expect(() => assertSchemaLimits(deep, 'p')).toThrow(/nested more than 64/);
    expect(() => assertSchemaLimits(fresh(deep), 'p')).toThrow(/nested more than 64/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(() => assertSchemaLimits(cyclic, () => 'lazy.param')).toThrow(/lazy\.param is nested/);
  });

  it('the prompted instruction names the format it is for, even when two formats share a schema', () => {
    const spec = (name: string) =>
      resolveOutputSpec({ type: 'json_schema', json_schema: { name, schema: fresh(person) } })!;
    expect(schemaInstruction(spec('alpha')).content).toContain('"alpha"');
    expect(schemaInstruction(spec('beta')).content).toContain('"beta"');
    expect(schemaInstruction(spec('beta'))).toBe(schemaInstruction(spec('beta')));
  });
});

describe('answers read once', () => {
  it('our zod format parses the value already read; a foreign parser still gets the text', () => {
    const format = zodResponseFormat(z.object({ name: z.string() }), 'p');
    const spec = resolveOutputSpec(format)!;
    expect(spec.parseValue).toBe((format as unknown as Record<symbol, unknown>)[PARSE_VALUE]);
    expect(checkOutput('{"name":"Ada"}', spec)).toEqual({
      ok: true,
      content: '{"name":"Ada"}',
      parsed: { name: 'Ada' },
    });
    const texts: string[] = [];
    const { parseValue: _ours, ...plain } = spec;
    const foreign: OutputSpec = { ...plain, parse: (text) => texts.push(text) && 'foreign' };
    expect(checkOutput(' {"name":"Ada"} ', foreign)).toMatchObject({ ok: true, parsed: 'foreign' });
    expect(texts).toEqual(['{"name":"Ada"}']);
    const ours: OutputSpec = { ...spec, parse: () => 'text parser', parseValue: (value) => ({ from: value }) };
    expect(checkOutput('{"name":"Ada"}', ours)).toMatchObject({ parsed: { from: { name: 'Ada' } } });
  });

  it('parseModelJson still finds JSON in fences, in prose, and repaired', () => {
    expect(parseModelJson('  {"a":1}\n')).toEqual({ value: { a: 1 }, text: '{"a":1}' });
    expect(parseModelJson('Here:\n```json\n{"a":2}\n```')).toEqual({ value: { a: 2 }, text: '{"a":2}' });
    expect(parseModelJson('The answer is {"a":3}. Done')).toEqual({ value: { a: 3 }, text: '{"a":3}' });
    expect(parseModelJson('{"a":4,}')?.value).toEqual({ a: 4 });
    expect(parseModelJson('no json here')).toBeUndefined();
    expect(parseModelJson('   ')).toBeUndefined();
  });

  it('tool calls find their tool by name, and see a tools array changed between checks', () => {
    const tool = (name: string, type: string) => ({
      type: 'function' as const,
      function: { name, parameters: { type: 'object', properties: { x: { type } } } },
    });
    const tools = [tool('a', 'string'), tool('b', 'string')];
    const message = (name: string) => ({
      role: 'assistant' as const,
      content: null,
      refusal: null,
      tool_calls: [{ id: '1', type: 'function' as const, function: { name, arguments: '{"x":1}' } }],
    });
    expect(checkToolCalls(message('b'), tools, new Set()).errors).toEqual(['b: /x must be string']);
    tools[1] = tool('b', 'integer');
    expect(checkToolCalls(message('b'), tools, new Set()).errors).toEqual([]);
    expect(checkToolCalls(message('c'), tools, new Set()).errors).toEqual(['c: there is no tool of that name']);
    tools.push(tool('c', 'integer'));
    expect(checkToolCalls(message('c'), tools, new Set()).errors).toEqual([]);
  });
});
