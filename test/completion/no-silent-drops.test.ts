import { describe, expect, it } from 'vitest';
import { MemoryDeploymentStore, MemorySink } from '../../src/entries/stores.ts';
import {
  type CompletionRequest,
  type CompletionWarning,
  createGateway,
  InvalidRequestError,
  UnsupportedParameterError,
} from '../../src/index.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer } from '../server/start-test-server.ts';

/**
 * Nothing a caller sends is ignored without a word: `json_object` with a `schema` (instructor's JSON_SCHEMA mode) is
 * honoured as that schema, and a field Switchyard does not know inside an object it reads is dropped with an
 * `unsupported_parameter` warning (an error under `strict`), as a top-level one is refused.
 */
const upstream = await useFakeOpenAIServer();
const gateway = (options: Parameters<typeof createGateway>[0] = {}) =>
  createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: { openai: { apiKey: 'sk-test-drops', baseURL: upstream.url } },
    ...options,
  });
const sent = () => upstream.requests.at(-1)!.body;
const dropped = (warnings: CompletionWarning[]) =>
  warnings.filter((warning) => warning.code === 'unsupported_parameter');
const hello = [{ role: 'user' as const, content: 'Extract: Jason is 25 years old' }];
const userDetail = {
  title: 'UserDetail',
  type: 'object',
  properties: { name: { title: 'Name', type: 'string' }, age: { title: 'Age', type: 'integer' } },
  required: ['name', 'age'],
};

describe('response_format json_object with a schema (instructor JSON_SCHEMA mode)', () => {
  const request = {
    model: 'gpt-4o-2024-11-20',
    messages: hello,
    response_format: { type: 'json_object', schema: userDetail },
  } as unknown as CompletionRequest & { stream?: false };

  it('reaches the provider as a json_schema format and holds the answer to the schema', async () => {
    upstream.enqueue({ content: '{"name":"Jason"}' }, { content: '{"name":"Jason","age":25}' });
    const response = await gateway().createCompletion(request);
    const first = upstream.requests.at(-2)!.body;
    expect(first.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'UserDetail', schema: { properties: userDetail.properties } },
    });
    // The first answer missed `age`: it was corrected, as for a json_schema request.
    expect(sent().messages.at(-1).content).toContain('age');
    expect(response.choices[0]!.message.parsed).toEqual({ name: 'Jason', age: 25 });
    expect(dropped(response.switchyard.warnings)).toEqual([]);
  });

  it('is answered by the simulator with an instance of the schema', async () => {
    const response = await createGateway({ mock: true }).createCompletion({ ...request, model: 'gpt-4o-latest' });
    expect(response.choices[0]!.message.parsed).toEqual({ name: 'example', age: 0 });
  });

  it('refuses a schema that is not a JSON Schema object, naming it', async () => {
    const error = await gateway()
      .createCompletion({ ...request, response_format: { type: 'json_object', schema: 'UserDetail' } } as never)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.param).toBe('response_format.schema');
  });
});

describe('a field Switchyard does not know inside an object it reads', () => {
  const tools = [
    {
      type: 'function' as const,
      function: { name: 'lookup', parameters: { type: 'object' }, examples: [{}] },
      priority: 'high',
    },
  ];
  const request = {
    model: 'gpt-4o-2024-11-20',
    messages: [
      { role: 'system', content: 'Be brief.', weight: 2 },
      { role: 'user', content: [{ type: 'text', text: 'hi', lang: 'en' }] },
    ],
    tools,
    tool_choice: { type: 'function', function: { name: 'lookup', force: true } },
    response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' }, version: 2 } },
    stream_options: { include_usage: true, chunk_size: 4 },
  } as unknown as CompletionRequest;
  const paths = [
    'messages[0].weight',
    'messages[1].content[0].lang',
    'tools[0].priority',
    'tools[0].function.examples',
    'tool_choice.function.force',
    'response_format.json_schema.version',
    'stream_options.chunk_size',
  ];

  it('is dropped with an unsupported_parameter warning naming its path, in the response and the record', async () => {
    const sink = new MemorySink();
    const strictless = gateway({ records: { sinks: [sink] } });
    upstream.enqueue({ content: '{}' });
    const response = await strictless.createCompletion(request);
    const warned = dropped(response.switchyard.warnings);
    expect(warned.map((warning) => warning.param).sort()).toEqual([...paths].sort());
    expect(warned[0]!.message).toMatch(/not a field Switchyard knows.*not sent/);
    const body = sent();
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(body.messages[1].content[0]).toEqual({ type: 'text', text: 'hi' });
    expect(body.tools[0]).not.toHaveProperty('priority');
    expect(body.tools[0].function).not.toHaveProperty('examples');
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
    // The caller's own objects are left as they were.
    expect(tools[0]).toHaveProperty('priority', 'high');
    await strictless.flush();
    expect(dropped(sink.records()[0]!.warnings).map((warning) => warning.param)).toEqual(warned.map((w) => w.param));
  });

  it('is an error under strict, naming the first one, before any provider is called', async () => {
    const before = upstream.requests.length;
    const error = await gateway({ strict: true })
      .createCompletion(request)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(UnsupportedParameterError);
    expect(error.param).toBe('messages[0].weight');
    expect(upstream.requests.length).toBe(before);
  });

  it('leaves alone what OpenAI clients send back: an answer message as the SDK returned it', async () => {
    upstream.enqueue({ tool_calls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }] }, { content: '{}' });
    const client = gateway({ strict: true });
    const lookup = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const first = await client.createCompletion({ model: 'gpt-4o-2024-11-20', messages: hello, tools: lookup });
    const answer = { ...first.choices[0]!.message, annotations: [], audio: null, function_call: null };
    const second = await client.createCompletion({
      model: 'gpt-4o-2024-11-20',
      messages: [...hello, answer, { role: 'tool', tool_call_id: 'call_1', content: '{}' }],
      tools: [{ type: 'function', function: { ...lookup[0]!.function, strict: false } }],
      stream_options: { include_usage: true, include_obfuscation: false },
      response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' }, strict: false } },
    });
    expect(dropped(second.switchyard.warnings)).toEqual([]);
  });

  it("is warned in a deployment's stored settings when a call runs them, with the caller's own", async () => {
    const deployments = new MemoryDeploymentStore([
      {
        id: 'lookup:production#1',
        agent_id: 'lookup',
        environment: 'production',
        number: 1,
        created_at: '2026-11-01T09:00:00Z',
        version: {
          model: 'gpt-4o-2024-11-20',
          messages: [{ role: 'user', content: 'Look it up.' }],
          tools: [{ type: 'function', function: { name: 'lookup', examples: [{}] } }] as never,
        },
      },
    ]);
    upstream.enqueue({ content: 'ok' });
    const response = await gateway({ deployments }).createCompletion({
      model: 'switchyard/deployment/lookup:production#1',
      stream_options: { include_usage: true, chunk_size: 4 },
    } as never);
    const warned = dropped(response.switchyard.warnings).map((warning) => warning.param);
    expect(warned.sort()).toEqual(['stream_options.chunk_size', 'tools[0].function.examples']);
    expect(sent().tools[0].function).not.toHaveProperty('examples');
  });

  it('reaches an HTTP client of serve as a warning too', async () => {
    const server = await startTestServer({ mock: true });
    try {
      const response = await server.openai().chat.completions.create({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi', mood: 'curious' } as never],
      });
      const { warnings } = (response as unknown as { switchyard: { warnings: Array<{ code: string; param: string }> } })
        .switchyard;
      const dropped = warnings.filter((warning) => warning.code === 'unsupported_parameter');
      expect(dropped.map((warning) => warning.param)).toEqual(['messages[0].mood']);
    } finally {
      await server.stop();
    }
  });
});

describe('a request with very many unknown fields', () => {
  it('is answered with a bounded list of warnings, each of bounded size', async () => {
    const message: Record<string, unknown> = { role: 'user', content: 'hi' };
    for (let index = 0; index < 30_000; index++) message[`extra_${index}`] = 1;
    message[`long_${'k'.repeat(200_000)}`] = 1;
    const answer = await gateway().createCompletion({ model: 'gpt-4o-latest', messages: [message] } as never);
    const warnings = dropped(answer.switchyard.warnings);
    expect(warnings.length).toBeLessThanOrEqual(21);
    expect(Math.max(...warnings.map((warning) => JSON.stringify(warning).length))).toBeLessThan(600);
    expect(warnings.at(-1)!.message).toMatch(/And 29981 more fields were dropped/);
    expect(JSON.stringify(sent())).not.toContain('extra_29999');
  });
});
