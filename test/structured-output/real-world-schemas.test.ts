import { describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError, StructuredOutputError } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { SCHEMA_VALIDATORS } from '../helpers/schema-validators.ts';

// Schemas as people write them (draft-04 configs, maps, unions at the root), through a fake OpenAI server: what is
// sent (strict or not, wrapped or not) and what comes back.
const server = await useFakeOpenAIServer();
const messages = [{ role: 'user' as const, content: 'Extract it.' }];
const formatOf = (schema: Record<string, unknown>, strict?: boolean) => ({
  type: 'json_schema' as const,
  json_schema: { name: 'answer', schema, ...(strict === undefined ? {} : { strict }) },
});
const sentFormat = () => server.requests.at(-1)!.body.response_format.json_schema;

const draft04 = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  id: 'https://example.com/schemas/invoice.json',
  type: 'object',
  definitions: { money: { type: 'number', minimum: 0, exclusiveMinimum: true } },
  properties: {
    number: { type: 'string' },
    total: { $ref: '#/definitions/money' },
  },
  required: ['number', 'total'],
  additionalProperties: false,
};

describe.each(SCHEMA_VALIDATORS)('with the %s validator', (schemaValidator) => {
  const gateway = gatewayAgainst(server.url, { schemaValidator });
  describe('schemas of every draft', () => {
    it('a draft-04 schema (id, definitions, boolean exclusiveMinimum) compiles and goes strict', async () => {
      server.enqueue({ content: '{"number":"INV-7","total":12.5}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(draft04),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ number: 'INV-7', total: 12.5 });
      const sent = sentFormat();
      expect(sent.strict).toBe(true);
      expect(sent.schema).not.toHaveProperty('$schema');
      expect(sent.schema).not.toHaveProperty('id');
      expect(sent.schema.definitions.money).toEqual({ type: 'number', exclusiveMinimum: 0 });
    });

    it('holds a draft-04 answer to draft-04 rules: exclusiveMinimum true refuses 0', async () => {
      server.enqueue({ content: '{"number":"INV-7","total":0}' }, { content: '{"number":"INV-7","total":0}' });
      const error = await gateway
        .createCompletion({ model: 'gpt-4o-latest', messages, response_format: formatOf(draft04) })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StructuredOutputError);
      expect((error as StructuredOutputError).validationErrors.join()).toContain('/total must be > 0');
    });

    it.each([
      ['draft-06', 'http://json-schema.org/draft-06/schema#'],
      ['draft-07', 'http://json-schema.org/draft-07/schema#'],
      ['2019-09', 'https://json-schema.org/draft/2019-09/schema'],
      ['2020-12', 'https://json-schema.org/draft/2020-12/schema'],
    ])('a %s schema compiles with its engine', async (_draft, $schema) => {
      const schema = { $schema, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
      server.enqueue({ content: '{"n":3}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(schema),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ n: 3 });
    });

    it('refuses $async with a 400 naming the keyword, before any provider is called', async () => {
      const schema = { $async: true, type: 'object', properties: { a: { type: 'string' } } };
      const error = await gateway
        .createCompletion({ model: 'gpt-4o-latest', messages, response_format: formatOf(schema) })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).param).toBe('response_format.json_schema.schema.$async');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('the strict-or-relax decision', () => {
    const map = {
      type: 'object',
      properties: { prices: { type: 'object', additionalProperties: { type: 'number' } } },
      required: ['prices'],
    };

    it('sends a map non-strict with a warning, and returns its arbitrary keys unchanged', async () => {
      const answer = '{"prices":{"apple":1.2,"pear":0.8}}';
      server.enqueue({ content: answer });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(map),
      });
      expect(response.choices[0]!.message.content).toBe(answer);
      expect(sentFormat().strict).toBe(false);
      expect(sentFormat().schema).toEqual(map);
      expect(response.switchyard.warnings).toEqual([
        expect.objectContaining({ code: 'strict_schema_relaxed', message: expect.stringContaining('open map') }),
      ]);
    });

    it('a map answer that breaks the schema is corrected once, then refused', async () => {
      server.enqueue({ content: '{"prices":{"apple":"cheap"}}' }, { content: '{"prices":{"apple":1}}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(map),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ prices: { apple: 1 } });
      expect(server.requests.at(-1)!.body.messages.at(-1).content).toContain('/prices/apple must be number');
    });

    it('a recursive $ref inside allOf neither overflows nor goes strict', async () => {
      const schema = {
        type: 'object',
        properties: { name: { type: 'string' }, child: { allOf: [{ $ref: '#' }] } },
        required: ['name'],
      };
      server.enqueue({ content: '{"name":"a","child":{"name":"b"}}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(schema),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ name: 'a', child: { name: 'b' } });
      expect(sentFormat().strict).toBe(false);
    });
  });

  describe('roots that are not objects', () => {
    const union = {
      anyOf: [
        { type: 'object', properties: { error: { type: 'string' } }, required: ['error'], additionalProperties: false },
        { type: 'array', items: { $ref: '#/$defs/item' } },
      ],
      $defs: { item: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    };

    it('a root anyOf is wrapped for the model and unwrapped for the caller', async () => {
      server.enqueue({ content: '{"value":[{"sku":"A-1"},{"sku":"B-2"}]}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(union),
      });
      expect(response.choices[0]!.message.content).toBe('[{"sku":"A-1"},{"sku":"B-2"}]');
      expect(response.choices[0]!.message.parsed).toEqual([{ sku: 'A-1' }, { sku: 'B-2' }]);
      const sent = sentFormat().schema;
      expect(sent.required).toEqual(['value']);
      expect(sent.$defs.item.properties.sku).toEqual({ type: 'string' });
      expect(sent.properties.value.anyOf[1].items).toEqual({ $ref: '#/$defs/item' });
    });

    it('streams the unwrapped value too', async () => {
      server.enqueue({ content: '{"value": [{"sku":"A-1"}]}' });
      const stream = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(union),
        stream: true,
      });
      let content = '';
      for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
      expect(content).toBe('[{"sku":"A-1"}]');
    });

    it('a scalar root works on the prompted path of the simulator', async () => {
      const response = await createGateway({ schemaValidator, mock: true }).createCompletion({
        model: 'claude-sonnet-4-5',
        messages,
        response_format: formatOf({ type: 'string', enum: ['yes', 'no'] }),
      });
      expect(['yes', 'no']).toContain(response.choices[0]!.message.parsed);
    });

    it('roots that are objects in all but name are objects', async () => {
      for (const schema of [
        { type: ['object'], properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { $ref: '#/$defs/thing', $defs: { thing: { type: 'object', properties: { a: { type: 'string' } } } } },
      ]) {
        server.enqueue({ content: '{"a":"x"}' });
        const response = await gateway.createCompletion({
          model: 'gpt-4o-latest',
          messages,
          response_format: formatOf(schema),
        });
        expect(response.choices[0]!.message.parsed).toEqual({ a: 'x' });
        expect(sentFormat().schema.type).toBe('object');
        expect(sentFormat().schema.properties).toHaveProperty('a');
      }
    });
  });

  describe('nulls are never invented nor hidden', () => {
    const payment = {
      type: 'object',
      properties: { amount: { type: 'number' }, currency: { type: 'string' } },
      required: ['amount'],
      additionalProperties: false,
    };

    it('on OpenAI strict form, a null for an optional property means it was left out', async () => {
      server.enqueue({ content: '{"amount":100,"currency":null}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(payment),
      });
      expect(sentFormat().strict).toBe(true);
      expect(response.choices[0]!.message.parsed).toEqual({ amount: 100 });
    });

    it('with strict: false the same null is an invalid answer, corrected, never dropped', async () => {
      server.enqueue({ content: '{"amount":100,"currency":null}' }, { content: '{"amount":100,"currency":"EUR"}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(payment, false),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ amount: 100, currency: 'EUR' });
      expect(response.switchyard.warnings.map((warning) => warning.code)).toContain('structured_output_retry');
    });

    it('on another provider (prompted or native) the null is validated as sent', async () => {
      const mock = createMockProvider({ respond: () => '{"amount":100,"currency":null}' });
      const error = await createGateway({ schemaValidator, mock })
        .createCompletion({ model: 'claude-sonnet-4-5', messages, response_format: formatOf(payment) })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StructuredOutputError);
      expect((error as StructuredOutputError).validationErrors.join()).toContain('/currency must be string');
    });

    it('a null the schema itself admits is kept, on every path', async () => {
      const nullable = {
        ...payment,
        properties: { ...payment.properties, currency: { type: ['string', 'null'] } },
      };
      server.enqueue({ content: '{"amount":100,"currency":null}' });
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        response_format: formatOf(nullable),
      });
      expect(response.choices[0]!.message.parsed).toEqual({ amount: 100, currency: null });
    });
  });
});
