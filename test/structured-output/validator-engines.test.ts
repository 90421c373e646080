import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { createGateway, InvalidRequestError } from '../../src/index.ts';
import { compileSchema } from '../../src/structured-output/json-schema-validator.ts';

const script = fileURLToPath(new URL('./validator-no-eval.script.ts', import.meta.url));

// Node's --disallow-code-generation-from-strings makes `new Function` throw an EvalError, as Cloudflare Workers and
// CSP-strict pages do. Before the interpreter, ajv failed there and the caller heard "The JSON Schema is invalid".
it('where code generation is forbidden, auto validates, repairs and corrects with the interpreter', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--disallow-code-generation-from-strings', script], {
    timeout: 60_000,
  });
  const [runtime, call, ajv] = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(runtime).toEqual({ codeGeneration: false, error: 'EvalError' });
  expect(call.content).toBe('{"name":"Ada","email":"ada@example.com"}');
  expect(call.corrections).toEqual([expect.stringContaining("(root) must have required property 'email'")]);
  expect(ajv.ajv).toMatch(/schemaValidator is "ajv", which needs code generation/);
});

it('asking for the interpreter where ajv could run uses the interpreter; an unknown setting is refused', () => {
  expect(() => createGateway({ mock: true, schemaValidator: 'interpreter' })).not.toThrow();
  expect(() => createGateway({ mock: true, schemaValidator: 'fast' as never })).toThrow(InvalidRequestError);
});

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[A-Z]' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    score: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
    email: { type: 'string', format: 'email' },
    role: { enum: ['admin', 'user'] },
    kind: { const: 'person' },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' }, minItems: 1, maxItems: 2, uniqueItems: true },
    meta: { type: 'object', minProperties: 1, maxProperties: 1 },
    'a/b c': { type: 'boolean' },
  },
  required: ['name', 'email', 'id'],
  additionalProperties: false,
  $defs: { tag: { type: 'string' } },
};

it.each([
  ['types, lengths, pattern', { name: 'abcdefg', email: 1, age: 1.5 }],
  ['bounds and multiples', { name: 'Al', email: 'a@b.co', age: -1, score: 10.25 }],
  ['exclusive bounds', { name: 'Al', email: 'a@b.co', score: 0 }],
  ['format, enum, const', { name: 'Al', email: 'not an email', role: 'root', kind: 'robot' }],
  ['arrays through a $ref', { name: 'Al', email: 'a@b.co', tags: ['x', 'x', 3] }],
  ['empty arrays and objects', { name: 'Al', email: 'a@b.co', tags: [], meta: {} }],
  ['extra properties, escaped paths', { name: 'Al', email: 'a@b.co', extra: 1, 'a/b c': 'no' }],
  ['not an object', ['a']],
])('the model is told the same from both engines: %s', (_label, answer) => {
  const [ajv, interpreter] = (['ajv', 'interpreter'] as const).map((engine) => {
    const validator = compileSchema(schema, 's', engine);
    expect(validator.validate(answer)).toBe(false);
    return validator.errors().sort();
  });
  expect(interpreter).toEqual(ajv);
});
