import OpenAI from 'openai';
import { zodResponseFormat as openaiZodResponseFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as z3 from 'zod/v3';
import {
  type CompletionChunk,
  createGateway,
  InvalidRequestError,
  StructuredOutputError,
  zodResponseFormat,
} from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { SCHEMA_VALIDATORS } from '../helpers/schema-validators.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

const server = await useFakeOpenAIServer();

const ask = [
  { role: 'system' as const, content: 'You extract contacts.' },
  { role: 'user' as const, content: 'Ada Lovelace, 36, ada@example.com' },
];
const contact = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Full name', examples: ['Grace Hopper'] },
    age: { type: 'integer', minimum: 0 },
    email: { type: 'string', format: 'email' },
  },
  required: ['name', 'email'],
  additionalProperties: false,
};
const format = { type: 'json_schema' as const, json_schema: { name: 'contact', schema: contact } };

describe.each(SCHEMA_VALIDATORS)('with the %s validator', (schemaValidator) => {
  describe('native path (OpenAI strict json_schema)', () => {
    it('sends the strict form of the schema and validates the answer against the original', async () => {
      server.enqueue({ content: '{"name":"Ada Lovelace","age":null,"email":"ada@example.com"}' });
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: format,
      });

      const sent = server.requests[0]!.body.response_format;
      expect(sent.json_schema.strict).toBe(true);
      expect(sent.json_schema.schema.required).toEqual(['name', 'age', 'email']);
      expect(sent.json_schema.schema.properties.age.type).toEqual(['integer', 'null']);
      expect(server.requests[0]!.body.messages).toEqual(ask);
      // age was optional: strict mode's null is taken as "left out".
      expect(JSON.parse(response.choices[0]!.message.content!)).toEqual({
        name: 'Ada Lovelace',
        email: 'ada@example.com',
      });
      expect(response.choices[0]!.message.parsed).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });
    });

    it('respects strict: false and sends the schema untouched', async () => {
      server.enqueue({ content: '{"name":"Ada","email":"ada@example.com"}' });
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: { type: 'json_schema', json_schema: { name: 'contact', schema: contact, strict: false } },
      });
      expect(server.requests[0]!.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'contact', schema: contact, strict: false },
      });
    });

    it('falls back to the prompted path when the provider rejects the schema', async () => {
      // As OpenAI answers it: the rejected field in `param`.
      server.enqueue(
        {
          error: {
            status: 400,
            message: "Invalid schema for response_format 'contact': unsupported keyword",
            param: 'response_format',
          },
        },
        { content: '{"name":"Ada","email":"ada@example.com"}' },
      );
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: format,
      });
      expect(server.requests[1]!.body.response_format).toEqual({ type: 'json_object' });
      expect(server.requests[1]!.body.messages[1].content).toContain('"contact"');
      expect(response.switchyard.warnings).toEqual([
        expect.objectContaining({ code: 'converted_parameter', param: 'response_format' }),
      ]);
    });

    it('returns refusals as refusals, without validation', async () => {
      server.enqueue({ content: null, refusal: "I can't help with that." });
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: format,
      });
      expect(response.choices[0]!.message).toMatchObject({ content: null, refusal: "I can't help with that." });
    });
  });

  describe('prompted path (no native support: DeepSeek)', () => {
    it('puts the schema (descriptions, examples) in a system message after the caller’s, with JSON mode', async () => {
      server.enqueue({ content: 'Sure! ```json\n{"name": "Ada Lovelace", "email": "ada@example.com",}\n```' });
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const response = await gateway.createCompletion({
        model: 'deepseek-reasoner-v3.2',
        messages: ask,
        response_format: format,
      });
      const sent = server.requests[0]!.body;
      expect(sent.response_format).toEqual({ type: 'json_object' });
      expect(sent.messages[0]).toEqual(ask[0]);
      expect(sent.messages[1].role).toBe('system');
      expect(sent.messages[1].content).toContain('Full name');
      expect(sent.messages[1].content).toContain('Grace Hopper');
      expect(sent.messages[2]).toEqual(ask[1]);
      // Extracted from the fence and repaired (trailing comma): content is the valid JSON text.
      expect(JSON.parse(response.choices[0]!.message.content!)).toEqual({
        name: 'Ada Lovelace',
        email: 'ada@example.com',
      });
    });

    it('retries once with the validation errors fed back', async () => {
      server.enqueue({ content: '{"name": "Ada"}' }, { content: '{"name": "Ada", "email": "ada@example.com"}' });
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const response = await gateway.createCompletion({
        model: 'deepseek-reasoner-v3.2',
        messages: ask,
        response_format: format,
      });
      const retry = server.requests[1]!.body.messages;
      expect(retry.at(-2)).toEqual({ role: 'assistant', content: '{"name": "Ada"}' });
      expect(retry.at(-1).content).toContain("must have required property 'email'");
      expect(response.choices[0]!.message.parsed).toEqual({ name: 'Ada', email: 'ada@example.com' });
      expect(response.switchyard.warnings.map((warning) => warning.code)).toContain('structured_output_retry');
      expect(response.switchyard.attempts).toHaveLength(2);
    });

    it('then tries structured_output_fallback, else throws StructuredOutputError with the raw answer', async () => {
      server.enqueue(
        { content: 'no idea' },
        { content: '{"name": 5}' },
        { content: '{"name":"Ada","email":"ada@example.com"}' },
      );
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const rescued = await gateway.createCompletion({
        model: 'deepseek-reasoner-v3.2',
        messages: ask,
        response_format: format,
        structured_output_fallback: 'gpt-4o-latest',
      });
      expect(rescued.model).toBe('gpt-4o-2024-11-20');
      expect(rescued.switchyard.attempts.map((attempt) => attempt.provider)).toEqual([
        'deepseek',
        'deepseek',
        'openai',
      ]);

      server.enqueue({ content: 'no idea' }, { content: '{"name": 5}' });
      const error = await gateway
        .createCompletion({ model: 'deepseek-reasoner-v3.2', messages: ask, response_format: format })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(StructuredOutputError);
      expect(error).toMatchObject({ status: 502, code: 'structured_output_invalid', raw: '{"name": 5}' });
      expect(error.validationErrors).toEqual(
        expect.arrayContaining(['/name must be string', "(root) must have required property 'email'"]),
      );
      expect(error.attempts).toHaveLength(2);
    });

    it('validates a streamed answer at the end and fails the stream when it does not match', async () => {
      server.enqueue({ content: '{"name": "Ada"}' });
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const stream = await gateway.createCompletion({
        model: 'deepseek-reasoner-v3.2',
        messages: ask,
        response_format: format,
        stream: true,
      });
      const seen: string[] = [];
      const error = await (async () => {
        try {
          for await (const chunk of stream as AsyncIterable<CompletionChunk>)
            seen.push(chunk.choices[0]?.delta.content ?? '');
        } catch (caught) {
          return caught;
        }
      })();
      expect(seen.join('')).toBe('{"name": "Ada"}');
      expect(error).toBeInstanceOf(StructuredOutputError);
    });
  });

  describe('json_object on every model', () => {
    it('adds an instruction only when no message mentions JSON', async () => {
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      server.enqueue({ content: '{"ok":true}' }, { content: '{"ok":true}' });
      await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'Reply as JSON please' }],
        response_format: { type: 'json_object' },
      });
      await gateway.createCompletion({
        model: 'llama-3.3-70b-instruct',
        messages: [{ role: 'user', content: 'Say ok' }],
        response_format: { type: 'json_object' },
      });
      expect(server.requests[0]!.body.messages).toHaveLength(1);
      expect(server.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
      expect(server.requests[1]!.body.messages[0].content).toContain('JSON object');
      expect(server.requests[1]!.body.response_format).toEqual({ type: 'json_object' });
    });
  });

  describe('zod', () => {
    const gateway = createGateway({ schemaValidator, catalog: testCatalog, mock: true });

    it('zod 4 via our zodResponseFormat gives a typed message.parsed', async () => {
      const Weather = z.object({
        city: z.string(),
        celsius: z.number().min(-90).max(60),
        conditions: z.enum(['sunny', 'rain']),
      });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: zodResponseFormat(Weather, 'weather'),
      });
      const parsed: { city: string; celsius: number; conditions: 'sunny' | 'rain' } | null =
        response.choices[0]!.message.parsed;
      expect(parsed).toEqual({ city: 'example', celsius: -90, conditions: 'sunny' });
    });

    it('zod 3 schemas work through zod-to-json-schema', async () => {
      const Item = z3.object({
        sku: z3.string(),
        quantity: z3.number().int().positive(),
        tags: z3.array(z3.string()).optional(),
      });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: zodResponseFormat(Item, 'item'),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ sku: 'example', quantity: 1, tags: ['example'] });
    });

    it("openai-node's own zodResponseFormat works too, and its parser never reaches the wire", async () => {
      server.enqueue({ content: '{"answer":"42"}' });
      const ours = gatewayAgainst(server.url, { schemaValidator });
      const response = await ours.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: openaiZodResponseFormat(z.object({ answer: z.string() }), 'answer'),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ answer: '42' });
      expect(JSON.stringify(server.requests[0]!.body)).not.toContain('$brand');
      void OpenAI;
    });
  });

  describe('bad schemas are 400s naming the place', () => {
    const gateway = createGateway({ schemaValidator, catalog: testCatalog, mock: true });
    it.each([
      [
        'draft-03 schema',
        { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' },
        'response_format.json_schema.schema.$schema',
        'draft-04',
      ],
      [
        'unresolvable $ref',
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
        'response_format.json_schema.schema.properties.a.$ref',
        'not in the schema',
      ],
      [
        'remote $ref',
        { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } },
        'response_format.json_schema.schema.properties.a.$ref',
        'no remote',
      ],
      [
        'invalid keyword value',
        { type: 'object', properties: { a: { type: 'strng' } } },
        'response_format.json_schema.schema',
        'invalid',
      ],
    ])('%s', async (_label, schema, param, phrase) => {
      const error = await gateway
        .createCompletion({
          model: 'gpt-4o-latest',
          messages: ask,
          response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
        })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.param).toBe(param);
      expect(error.message).toContain(phrase);
    });

    it('a scripted broken answer from the simulator is repaired, and prose is rejected', async () => {
      const mock = createMockProvider({
        replies: ['```json\n{"name":"Ada","email":"ada@example.com"\n```', 'Sorry, no.', 'Still no.'],
      });
      const scripted = createGateway({ schemaValidator, catalog: testCatalog, mock });
      const repaired = await scripted.createCompletion({
        model: 'gpt-4o-latest',
        messages: ask,
        response_format: format,
      });
      expect(repaired.choices[0]!.message.parsed).toEqual({ name: 'Ada', email: 'ada@example.com' });
      await expect(
        scripted.createCompletion({ model: 'gpt-4o-latest', messages: ask, response_format: format }),
      ).rejects.toBeInstanceOf(StructuredOutputError);
    });
  });

  describe('schemas that cannot be checked synchronously', () => {
    // ajv compiles `$async: true` to a validator that returns a promise: once the answer "passed" (a promise is
    // truthy) and then the rejected promise killed the process. Such schemas are refused before any provider is called.
    const asyncSchema = { $async: true, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

    it('refuses $async in response_format with a 400 naming the keyword, before any provider is called', async () => {
      const gateway = gatewayAgainst(server.url, { schemaValidator });
      const before = server.requests.length;
      const error = await gateway
        .createCompletion({
          model: 'gpt-4o-latest',
          messages: ask,
          response_format: { type: 'json_schema', json_schema: { name: 'n', schema: asyncSchema } },
        })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error).toMatchObject({
        status: 400,
        code: 'invalid_schema',
        param: 'response_format.json_schema.schema.$async',
      });
      expect((error as Error).message).toMatch(/\$async/);
      expect(server.requests.length).toBe(before);
    });

    it('refuses $async in a nested schema and in tool parameters too', async () => {
      const gateway = createGateway({ schemaValidator, mock: true });
      const nested = { type: 'object', properties: { inner: { $async: true, type: 'object' } } };
      await expect(
        gateway.createCompletion({
          model: 'gpt-4o-latest',
          messages: ask,
          response_format: { type: 'json_schema', json_schema: { name: 'n', schema: nested } },
        }),
      ).rejects.toMatchObject({ status: 400, param: 'response_format.json_schema.schema.properties.inner.$async' });
      await expect(
        gateway.createCompletion({
          model: 'gpt-4o-latest',
          messages: ask,
          tools: [{ type: 'function', function: { name: 'f', parameters: asyncSchema } }],
        }),
      ).rejects.toMatchObject({ status: 400, param: 'tools[0].function.parameters.$async' });
    });
  });
});
