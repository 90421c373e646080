import { describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError } from '../src/index.ts';
import { testCatalog } from './helpers/test-catalog.ts';

const gateway = createGateway({ catalog: testCatalog, mock: true });
const hello = [{ role: 'user', content: 'hi' }];

/** Each case: a bad request, the `param` the error must name, and a phrase the message must contain. */
const cases: Array<[string, Record<string, unknown>, string | null, string]> = [
  ['not an object', [] as unknown as Record<string, unknown>, null, 'JSON object'],
  ['missing model', { messages: hello }, 'model', 'is required'],
  ['messages missing on a direct call', { model: 'gpt-4o-latest' }, 'messages', 'required for a direct model call'],
  ['messages not an array', { model: 'gpt-4o-latest', messages: 'hi' }, 'messages', 'must be an array'],
  [
    'unknown role',
    { model: 'gpt-4o-latest', messages: [{ role: 'robot', content: 'x' }] },
    'messages[0].role',
    'must be one of',
  ],
  ['user without content', { model: 'gpt-4o-latest', messages: [{ role: 'user' }] }, 'messages[0].content', 'required'],
  [
    'tool without tool_call_id',
    { model: 'gpt-4o-latest', messages: [{ role: 'tool', content: 'x' }] },
    'messages[0].tool_call_id',
    'tool_call_id',
  ],
  [
    'bad content part',
    { model: 'gpt-4o-latest', messages: [{ role: 'user', content: [{ type: 'video' }] }] },
    'messages[0].content[0]',
    'content part',
  ],
  [
    'temperature wrong type',
    { model: 'gpt-4o-latest', messages: hello, temperature: 'hot' },
    'temperature',
    'number from 0 to 2',
  ],
  [
    'temperature out of range',
    { model: 'gpt-4o-latest', messages: hello, temperature: 3 },
    'temperature',
    'from 0 to 2',
  ],
  [
    'max_tokens not an integer',
    { model: 'gpt-4o-latest', messages: hello, max_tokens: 1.5 },
    'max_tokens',
    'whole number',
  ],
  ['stream not boolean', { model: 'gpt-4o-latest', messages: hello, stream: 'yes' }, 'stream', 'true or false'],
  [
    'metadata value not a string',
    { model: 'gpt-4o-latest', messages: hello, metadata: { run: 1 } },
    'metadata.run',
    'must be a string',
  ],
  ['unknown parameter', { model: 'gpt-4o-latest', messages: hello, temprature: 1 }, 'temprature', 'Unrecognized'],
  [
    'reasoning with budget and effort',
    { model: 'o3-latest', messages: hello, reasoning: { budget: 100, effort: 'low' } },
    'reasoning',
    'not both',
  ],
  ['reasoning empty', { model: 'o3-latest', messages: hello, reasoning: {} }, 'reasoning', 'needs "budget"'],
  [
    'reasoning budget negative',
    { model: 'o3-latest', messages: hello, reasoning: { budget: -1 } },
    'reasoning.budget',
    '≥ 0',
  ],
  [
    'reasoning effort unknown',
    { model: 'o3-latest', messages: hello, reasoning: { effort: 'extreme' } },
    'reasoning.effort',
    'must be one of',
  ],
  [
    'reasoning_effort unknown',
    { model: 'o3-latest', messages: hello, reasoning_effort: 'extreme' },
    'reasoning_effort',
    'must be one of none, minimal',
  ],
  [
    'reasoning_effort none on a model that cannot stop reasoning',
    { model: 'o3-latest', messages: hello, reasoning_effort: 'none' },
    'reasoning_effort',
    'reasoning: { effort: "disabled" }',
  ],
  [
    'reasoning and reasoning_effort disagree',
    { model: 'o3-latest', messages: hello, reasoning: { effort: 'low' }, reasoning_effort: 'high' },
    'reasoning',
    'disagree',
  ],
  [
    'reasoning on a model without it',
    { model: 'gpt-4o-latest', messages: hello, reasoning: { effort: 'low' } },
    'reasoning',
    'does not reason',
  ],
  [
    'response_format unknown type',
    { model: 'gpt-4o-latest', messages: hello, response_format: { type: 'xml' } },
    'response_format.type',
    'not supported',
  ],
  [
    'json_schema without schema',
    { model: 'gpt-4o-latest', messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
    'response_format.json_schema.schema',
    'JSON Schema object',
  ],
  [
    'json_schema bad name',
    {
      model: 'gpt-4o-latest',
      messages: hello,
      response_format: { type: 'json_schema', json_schema: { name: 'has space', schema: {} } },
    },
    'response_format.json_schema.name',
    'letters',
  ],
  [
    'tool with bad name',
    { model: 'gpt-4o-latest', messages: hello, tools: [{ type: 'function', function: { name: 'no spaces allowed' } }] },
    'tools[0].function.name',
    '1–64',
  ],
  [
    'tool_choice names a missing tool',
    {
      model: 'gpt-4o-latest',
      messages: hello,
      tools: [{ type: 'function', function: { name: 'a' } }],
      tool_choice: { type: 'function', function: { name: 'b' } },
    },
    'tool_choice',
    'not in "tools"',
  ],
  [
    'input variable missing',
    { model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'Hi {{user.name}}' }], input: { user: {} } },
    'input.user.name',
    '{{user.name}}',
  ],
];

describe('request validation', () => {
  it.each(cases)('%s → 400', async (_label, request, param, phrase) => {
    const error = await gateway.createCompletion(request as never).catch((caught) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe(param);
    expect(error.message).toContain(phrase);
    expect(error.toJSON()).toEqual({
      error: { message: error.message, type: 'invalid_request_error', param, code: error.code },
    });
  });

  it('accepts reasoning and reasoning_effort together when they agree', async () => {
    const response = await gateway.createCompletion({
      model: 'o3-latest',
      messages: hello as never,
      reasoning: { budget: 50_000 },
      reasoning_effort: 'medium',
    });
    expect(response.choices[0]!.message.content).toContain('Simulated reply');
  });

  it('fills {{variables}} from input on a direct call, without HTML escaping', async () => {
    const response = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: [{ role: 'user', content: 'Hello {{ user.name }}, your order {{order}}' }],
      input: { user: { name: 'Tom & Jerry <tj@x.com>' }, order: { id: 7 } },
    });
    expect(response.choices[0]!.message.content).toContain('Hello Tom & Jerry <tj@x.com>, your order {"id":7}');
  });
});
