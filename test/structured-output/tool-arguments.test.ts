import { describe, expect, it } from 'vitest';
import { createGateway, ToolArgumentsError } from '../../src/index.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { SCHEMA_VALIDATORS } from '../helpers/schema-validators.ts';

// Tool-call arguments held to each tool's parameters, through a fake OpenAI server; strict tools decided like
// output schemas.
const server = await useFakeOpenAIServer();
const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
const call = (args: string) => ({ tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: args }] });
const argumentsOf = (response: any) => response.choices[0].message.tool_calls[0].function.arguments;

describe.each(SCHEMA_VALIDATORS)('with the %s validator', (schemaValidator) => {
  const gateway = gatewayAgainst(server.url, { schemaValidator });
  describe('tool-call arguments', () => {
    it('valid arguments pass untouched, with no warning', async () => {
      server.enqueue(call('{"city":"Paris","unit":"c"}'));
      const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages, tools: [weather] });
      expect(argumentsOf(response)).toBe('{"city":"Paris","unit":"c"}');
      expect(response.switchyard.warnings).toEqual([]);
      expect(server.requests).toHaveLength(1);
    });

    it('invalid arguments: the model is asked once more with the problems as tool results', async () => {
      server.enqueue(call('{"town":"Paris"}'), call('{"city":"Paris"}'));
      const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages, tools: [weather] });
      expect(argumentsOf(response)).toBe('{"city":"Paris"}');
      const retry = server.requests[1]!.body.messages;
      expect(retry.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1' }] });
      expect(retry.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
      expect(retry.at(-1).content).toContain("must have required property 'city'");
      expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual(['tool_arguments_retry']);
    });

    it('still invalid: a warning by default, ToolArgumentsError with tool_call_validation "error"', async () => {
      server.enqueue(call('{"town":"Paris"}'), call('{"town":"Paris"}'));
      const warned = await gateway.createCompletion({ model: 'gpt-4o-latest', messages, tools: [weather] });
      expect(warned.switchyard.warnings.map((warning) => warning.code)).toContain('tool_arguments_invalid');
      expect(argumentsOf(warned)).toBe('{"town":"Paris"}');

      server.enqueue(call('{"town":"Paris"}'), call('{"town":"Paris"}'));
      const error = await gateway
        .createCompletion({ model: 'gpt-4o-latest', messages, tools: [weather], tool_call_validation: 'error' })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ToolArgumentsError);
      expect((error as ToolArgumentsError).validationErrors[0]).toContain('get_weather:');
      expect((error as ToolArgumentsError).status).toBe(502);
    });

    // The draft's meta-schema is known to both engines (the interpreter's loaded before the call's schemas compile).
    it('a parameter that must be a JSON Schema: a $ref to the meta-schema checks it', async () => {
      const define = {
        type: 'function' as const,
        function: {
          name: 'define',
          parameters: {
            type: 'object',
            properties: { schema: { $ref: 'https://json-schema.org/draft/2020-12/schema' } },
            required: ['schema'],
          },
        },
      };
      const defineCall = (args: string) => ({ tool_calls: [{ id: 'call_1', name: 'define', arguments: args }] });
      const ask = { model: 'gpt-4o-latest', messages, tools: [define], tool_call_validation: 'error' as const };
      server.enqueue(defineCall('{"schema":{"type":"string"}}'));
      expect(argumentsOf(await gateway.createCompletion(ask))).toBe('{"schema":{"type":"string"}}');
      server.enqueue(defineCall('{"schema":{"type":7}}'), defineCall('{"schema":{"$defs":{"a":{"minimum":"x"}}}}'));
      const error = await gateway.createCompletion(ask).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ToolArgumentsError);
      expect((error as ToolArgumentsError).validationErrors).toContainEqual(
        expect.stringContaining('define: /schema/$defs/a/minimum must be number'),
      );
    });

    it('arguments that are almost JSON are repaired, and say so', async () => {
      server.enqueue(call("{'city': 'Paris',}"));
      const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages, tools: [weather] });
      expect(argumentsOf(response)).toBe('{"city":"Paris"}');
      expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual(['tool_arguments_repaired']);
    });

    it('"off" leaves the arguments as the model wrote them', async () => {
      server.enqueue(call('{"town":"Paris"}'));
      const response = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        tools: [weather],
        tool_call_validation: 'off',
      });
      expect(argumentsOf(response)).toBe('{"town":"Paris"}');
      expect(server.requests).toHaveLength(1);
    });

    it('streamed calls are checked at the end: a warning by default, ToolArgumentsError with "error"', async () => {
      server.enqueue(call('{"town":"Paris"}'));
      const warned = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        tools: [weather],
        stream: true,
      });
      for await (const _chunk of warned) {
        // read to the end
      }
      expect(warned.switchyard.warnings.map((warning) => warning.code)).toContain('tool_arguments_invalid');

      server.enqueue(call('{"town":"Paris"}'));
      const strict = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        tools: [weather],
        stream: true,
        tool_call_validation: 'error',
      });
      const error = await (async () => {
        for await (const _chunk of strict) {
          // read to the end
        }
      })().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ToolArgumentsError);

      server.enqueue(call('{"city":"Paris"}'));
      const valid = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages,
        tools: [weather],
        stream: true,
      });
      for await (const _chunk of valid) {
        // read to the end
      }
      expect(valid.switchyard.warnings).toEqual([]);
    });

    it('the simulator calls tools with arguments valid against their parameters', async () => {
      const response = await createGateway({ schemaValidator, mock: true }).createCompletion({
        model: 'claude-sonnet-4-5',
        messages,
        tools: [weather],
        tool_choice: 'required',
        tool_call_validation: 'error',
      });
      expect(JSON.parse(argumentsOf(response))).toHaveProperty('city');
    });
  });

  describe('strict tools', () => {
    const strictWeather = { ...weather, function: { ...weather.function, strict: true } };

    it('go in strict form, and a null for an optional parameter means it was left out', async () => {
      server.enqueue(call('{"city":"Paris","unit":null}'));
      const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages, tools: [strictWeather] });
      const sent = server.requests[0]!.body.tools[0].function;
      expect(sent.strict).toBe(true);
      expect(sent.parameters.required).toEqual(['city', 'unit']);
      expect(sent.parameters.properties.unit.type).toEqual(['string', 'null']);
      expect(argumentsOf(response)).toBe('{"city":"Paris"}');
    });

    it('whose parameters strict mode cannot express go non-strict, with a warning', async () => {
      const tags = {
        type: 'function' as const,
        function: {
          name: 'tag',
          strict: true,
          parameters: {
            type: 'object',
            properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
          },
        },
      };
      server.enqueue({ tool_calls: [{ id: 'call_1', name: 'tag', arguments: '{"labels":{"a":"b"}}' }] });
      const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages, tools: [tags] });
      const sent = server.requests[0]!.body.tools[0].function;
      expect(sent.strict).toBe(false);
      expect(sent.parameters).toEqual(tags.function.parameters);
      expect(response.switchyard.warnings).toEqual([
        expect.objectContaining({ code: 'strict_schema_relaxed', param: 'tools.function.strict' }),
      ]);
    });
  });
});
