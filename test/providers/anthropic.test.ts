import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogData, ModelEntry } from '../../src/entries/providers.ts';
import {
  AuthenticationError,
  Catalog,
  createGateway,
  type GatewayOptions,
  InvalidRequestError,
  ProviderError,
  RateLimitError,
  StreamInterruptedError,
} from '../../src/index.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { assembleToolCalls, collect, deltaText } from '../helpers/chunks.ts';

const supports: ModelEntry['supports'] = {
  reasoning: true,
  structured_outputs: true,
  json_mode: false,
  tools: true,
  parallel_tool_calls: true,
  images: true,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: true,
};
const pricing = { input: 3, output: 15, cached_input: 0.3 };
const claude = (id: string, max: number, extra: Partial<ModelEntry>): ModelEntry => ({
  id,
  name: id,
  maker: 'anthropic',
  release_date: '2025-10-01',
  context_window: 200000,
  max_output_tokens: max,
  supports,
  providers: [{ provider: 'anthropic', model: id, pricing }],
  ...extra,
});
const budget = { control: 'budget', can_disable: true, min_budget: 1024, max_budget: 63999 } as const;
const levels = ['low', 'medium', 'high', 'xhigh', 'max'];
const catalogData: CatalogData = {
  updated: '2026-11-22',
  models: [
    claude('claude-sonnet-4-5-20250929', 64000, { reasoning: budget }),
    claude('claude-haiku-4-5-20251001', 64000, { reasoning: budget }),
    claude('claude-opus-4-7', 128000, {
      supports: { ...supports, temperature: false, top_p: false },
      reasoning: { control: 'level', can_disable: true, efforts: levels },
    }),
    claude('claude-fable-5', 128000, {
      supports: { ...supports, temperature: false, top_p: false, reasoning_can_disable: false },
      reasoning: { control: 'level', can_disable: false, efforts: levels },
    }),
    claude('claude-3-5-haiku-20241022', 8192, {
      supports: { ...supports, reasoning: false, structured_outputs: false, reasoning_can_disable: false },
    }),
  ],
  aliases: { 'claude-haiku-4-5-latest': 'claude-haiku-4-5-20251001' },
  synonyms: {},
};
const catalog = new Catalog(catalogData);
// The SDK console.warns on every call to claude-sonnet-4-5 (deprecated); the tests use Haiku 4.5, same reasoning facts.
const HAIKU = 'claude-haiku-4-5-20251001';
const HAIKU3 = 'claude-3-5-haiku-20241022';
const KEY = 'sk-ant-test-0123456789abcdef';

let server: FakeAnthropicServer;
beforeAll(async () => {
  server = await startFakeAnthropicServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

function gateway(options: GatewayOptions = {}) {
  return createGateway({
    catalog,
    env: {},
    providers: { anthropic: { apiKey: KEY, baseURL: server.url } },
    retry: { initialDelayMs: 1, maxDelayMs: 20 },
    ...options,
  });
}
const hello = [{ role: 'user' as const, content: 'Say hello' }];
const sent = (index = 0) => server.requests[index]!.body;
const params = (warnings: Array<{ param?: string }>) => warnings.map((warning) => warning.param);

describe('Anthropic adapter, requests and responses', () => {
  it('moves system and developer messages to the top-level system and normalises the answer and usage', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'Hi there' }],
      usage: { input_tokens: 5, output_tokens: 3, cache_creation_input_tokens: 100, cache_read_input_tokens: 200 },
    });
    const response = await gateway().createCompletion({
      model: 'claude-haiku-4-5-latest',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        ...hello,
      ],
    });

    const request = server.requests[0]!;
    expect(request.path).toBe('/v1/messages');
    // SDK 1.x sends the key as a Bearer token (not x-api-key) and speaks API version 2026-10-21.
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['anthropic-version']).toBe('2026-10-21');
    expect(request.body).toEqual({
      model: HAIKU,
      stream: false,
      max_tokens: 21333,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in English.' },
      ],
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(response).toMatchObject({ id: 'msg_fake1', object: 'chat.completion', model: HAIKU });
    expect(response.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Hi there', refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ]);
    expect(response.usage).toEqual({
      prompt_tokens: 305,
      completion_tokens: 3,
      total_tokens: 308,
      prompt_tokens_details: { cached_tokens: 200, cache_write_tokens: 100, cache_write_1h_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(response.switchyard).toMatchObject({ provider: 'anthropic', provider_model: HAIKU, warnings: [] });
  });

  it("always sends max_tokens: the caller's, capped at the model's, or a default", async () => {
    const gw = gateway();
    await gw.createCompletion({ model: HAIKU3, messages: hello });
    await collect(await gw.createCompletion({ model: HAIKU, messages: hello, stream: true }));
    await gw.createCompletion({ model: HAIKU, messages: hello, max_tokens: 300 });
    const capped = await gw.createCompletion({ model: HAIKU3, messages: hello, max_completion_tokens: 50_000 });
    // A non-streaming call with a large max_tokens is not refused by the SDK (the adapter always passes a timeout).
    await gw.createCompletion({ model: 'claude-opus-4-7', messages: hello, max_tokens: 128_000 });
    expect(server.requests.map((request) => request.body.max_tokens)).toEqual([8192, 64000, 300, 8192, 128000]);
    expect(capped.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'converted_parameter', param: 'max_completion_tokens' }),
    ]);
  });

  it('converts a multi-turn tool conversation and returns tool calls with their arguments', async () => {
    server.enqueue({
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: { city: 'Lyon', days: 2 } },
      ],
    });
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather by city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const response = await gateway().createCompletion({
      model: HAIKU,
      tools,
      tool_choice: 'required',
      parallel_tool_calls: false,
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            {
              id: 'functions.get_weather:1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '18°C' },
        { role: 'tool', tool_call_id: 'functions.get_weather:1', content: [{ type: 'text', text: '24°C' }] },
        { role: 'user', content: 'And Lyon?' },
      ],
    });

    expect(sent()).toMatchObject({
      tools: [
        {
          name: 'get_weather',
          description: 'Weather by city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'functions_get_weather_1', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: '18°C' },
            { type: 'tool_result', tool_use_id: 'functions_get_weather_1', content: [{ type: 'text', text: '24°C' }] },
            { type: 'text', text: 'And Lyon?' },
          ],
        },
      ],
    });
    expect(sent().messages).toHaveLength(3);
    const message = response.choices[0]!.message;
    expect(message.content).toBe('Checking.');
    expect(message.tool_calls).toEqual([
      { id: 'toolu_02', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon","days":2}' } },
    ]);
    expect(JSON.parse((message.tool_calls![0] as { function: { arguments: string } }).function.arguments)).toEqual({
      city: 'Lyon',
      days: 2,
    });
    expect(response.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('rejects tool-call arguments that are not JSON, naming the message, without calling Anthropic', async () => {
    const error = await gateway()
      .createCompletion({
        model: HAIKU,
        messages: [
          ...hello,
          {
            role: 'assistant',
            tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'f', arguments: '{city:' } }],
          },
        ],
      })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.param).toBe('messages[1].tool_calls[0].function.arguments');
    expect(server.requests).toHaveLength(0);
  });

  it('sends image parts as base64 and URL sources', async () => {
    await gateway().createCompletion({
      model: HAIKU,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
          ],
        },
      ],
    });
    expect(sent().messages[0].content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('drops sampling and other parameters Anthropic has no equivalent for, each with a warning', async () => {
    const response = await gateway().createCompletion({
      model: HAIKU,
      messages: hello,
      temperature: 1.5,
      top_p: 0.9,
      seed: 7,
      n: 2,
      logprobs: true,
      top_logprobs: 2,
      frequency_penalty: 0.5,
      presence_penalty: 0.2,
      logit_bias: { '50256': -100 },
      stop: ['END', ' '],
      user: 'user-42',
    });
    // This catalog names no sampling_api_version: on the SDK's 2026-10-21, temperature and top_p cannot be sent.
    expect(sent()).toEqual({
      model: HAIKU,
      stream: false,
      max_tokens: 21333,
      messages: hello,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
    });
    const warnings = response.switchyard.warnings;
    expect(params(warnings).sort()).toEqual([
      'frequency_penalty',
      'logit_bias',
      'logprobs',
      'n',
      'presence_penalty',
      'seed',
      'stop',
      'temperature',
      'top_logprobs',
      'top_p',
    ]);
    expect(warnings.find((warning) => warning.param === 'temperature')).toMatchObject({
      code: 'unsupported_parameter',
    });
    expect(warnings.find((warning) => warning.param === 'stop')).toMatchObject({ code: 'converted_parameter' });
  });

  it(
    'sends a JSON schema as output_config.format where the model has structured outputs, and asks for JSON objects ' +
      'in the prompt',
    async () => {
      const schema = {
        type: 'object',
        properties: { answer: { type: 'string' } },
        required: ['answer'],
        additionalProperties: false,
      };
      const format = { type: 'json_schema' as const, json_schema: { name: 'answer', schema, strict: true } };
      const json = (text: string) => ({ content: [{ type: 'text' as const, text }] });
      server.enqueue(json('{"answer":"yes"}'), json('{"answer":"no"}'), json('{"ok":true}'));
      const native = await gateway().createCompletion({ model: HAIKU, messages: hello, response_format: format });
      await gateway().createCompletion({ model: HAIKU3, messages: hello, response_format: format });
      const object = await gateway().createCompletion({
        model: HAIKU,
        messages: [{ role: 'user', content: 'Say hello' }],
        response_format: { type: 'json_object' },
      });

      expect(sent(0).output_config).toEqual({
        format: { type: 'json_schema', schema: expect.objectContaining({ properties: schema.properties }) },
      });
      expect(native.choices[0]!.message.content).toBe('{"answer":"yes"}');
      // No native structured outputs: the gateway's structured-output layer puts the schema in the system prompt.
      expect(sent(1).output_config).toBeUndefined();
      expect(JSON.stringify(sent(1).system)).toContain('answer');
      expect(sent(2).output_config).toBeUndefined();
      expect(sent(2).system).toEqual([{ type: 'text', text: expect.stringContaining('JSON object') }]);
      // Claude has no JSON mode: the gateway asks for JSON in the prompt and validates, with nothing dropped.
      expect(object.switchyard.warnings).toEqual([]);
      expect(object.choices[0]!.message.parsed).toEqual({ ok: true });
    },
  );

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
  ])('maps stop_reason %s to finish_reason %s', async (stopReason, finishReason) => {
    server.enqueue({ stop_reason: stopReason });
    const response = await gateway().createCompletion({ model: HAIKU, messages: hello });
    expect(response.choices[0]!.finish_reason).toBe(finishReason);
  });

  it('turns a refusal into content_filter with the explanation as message.refusal', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'I can' }],
      stop_reason: 'refusal',
      stop_details: {
        type: 'refusal',
        category: 'cyber',
        explanation: 'This request could enable malware development.',
      },
    });
    const response = await gateway().createCompletion({ model: HAIKU, messages: hello });
    expect(response.choices[0]).toMatchObject({
      finish_reason: 'content_filter',
      message: { content: null, refusal: 'This request could enable malware development.' },
    });
  });
});

const thinkingReply = {
  content: [
    { type: 'thinking' as const, thinking: 'The user wants the weather; call the tool.', signature: 'sig-abc123' },
    { type: 'redacted_thinking' as const, data: 'ENCRYPTED==' },
    { type: 'text' as const, text: 'Let me check.' },
    { type: 'tool_use' as const, id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
  ],
  usage: { input_tokens: 40, output_tokens: 90, thinking_tokens: 60 },
};
const weatherTool = [
  {
    type: 'function' as const,
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
];

describe('Anthropic adapter, streaming', () => {
  it('streams text, with the usage chunk only when stream_options.include_usage', async () => {
    server.enqueue(
      {
        content: [{ type: 'text', text: 'Hello, streaming world' }],
        usage: { input_tokens: 9, output_tokens: 4, cache_read_input_tokens: 3 },
      },
      {},
    );
    const gw = gateway();
    const stream = await gw.createCompletion({
      model: HAIKU,
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await collect(stream);
    expect(sent().stream).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(deltaText(chunks, 'content')).toBe('Hello, streaming world');
    expect(new Set(chunks.map((chunk) => `${chunk.id}|${chunk.created}|${chunk.model}|${chunk.object}`)).size).toBe(1);
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 3 } },
    });
    expect(stream.switchyard.provider).toBe('anthropic');

    const plain = await collect(await gw.createCompletion({ model: HAIKU, messages: hello, stream: true }));
    expect(plain.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk))).toBe(true);
  });

  it('streams tool-call argument deltas by tool-call index', async () => {
    server.enqueue({
      content: [
        { type: 'text', text: 'Two lookups.' },
        { type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { q: 'first query' } },
        { type: 'tool_use', id: 'toolu_b', name: 'now', input: {} },
      ],
    });
    const chunks = await collect(
      await gateway().createCompletion({ model: HAIKU, messages: hello, tools: weatherTool, stream: true }),
    );
    const calls = assembleToolCalls(chunks);
    expect(calls).toEqual({
      0: { id: 'toolu_a', name: 'lookup', arguments: '{"q":"first query"}' },
      1: { id: 'toolu_b', name: 'now', arguments: '{}' },
    });
    expect(deltaText(chunks, 'content')).toBe('Two lookups.');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streams thinking as reasoning_content first, then each block as a complete reasoning_details entry', async () => {
    server.enqueue(thinkingReply);
    const chunks = await collect(
      await gateway().createCompletion({
        model: HAIKU,
        messages: hello,
        tools: weatherTool,
        reasoning: { effort: 'low' },
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(deltaText(chunks, 'reasoning_content')).toBe('The user wants the weather; call the tool.');
    const firstReasoning = chunks.findIndex((chunk) => chunk.choices[0]?.delta.reasoning_content);
    const firstDetail = chunks.findIndex((chunk) => chunk.choices[0]?.delta.reasoning_details);
    const firstText = chunks.findIndex((chunk) => chunk.choices[0]?.delta.content);
    expect(firstReasoning).toBeLessThan(firstDetail);
    expect(firstDetail).toBeLessThan(firstText);
    expect(chunks.flatMap((chunk) => chunk.choices[0]?.delta.reasoning_details ?? [])).toEqual([
      {
        type: 'reasoning.text',
        format: 'anthropic',
        text: 'The user wants the weather; call the tool.',
        signature: 'sig-abc123',
      },
      { type: 'reasoning.encrypted', format: 'anthropic', data: 'ENCRYPTED==' },
    ]);
    expect(chunks.at(-1)!.usage).toMatchObject({
      completion_tokens: 90,
      completion_tokens_details: { reasoning_tokens: 60 },
    });
  });
});

describe('Anthropic adapter, reasoning', () => {
  it('returns thinking as reasoning_content and _details, restored first in the next turn', async () => {
    server.enqueue(thinkingReply, { content: [{ type: 'text', text: 'Sunny, 21°C.' }] });
    const gw = gateway();
    const messages: any[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await gw.createCompletion({
      model: HAIKU,
      messages,
      tools: weatherTool,
      reasoning: { effort: 'low' },
    });
    const assistant = first.choices[0]!.message;
    expect(assistant.reasoning_content).toBe('The user wants the weather; call the tool.');
    expect(assistant.reasoning_details).toEqual(
      thinkingReply.content
        .slice(0, 2)
        .map((block) =>
          block.type === 'thinking'
            ? { type: 'reasoning.text', format: 'anthropic', text: block.thinking, signature: block.signature }
            : { type: 'reasoning.encrypted', format: 'anthropic', data: 'ENCRYPTED==' },
        ),
    );
    expect(first.usage!.completion_tokens_details!.reasoning_tokens).toBe(60);

    // The caller sends the assistant message back as it was returned (plus an entry of another provider, ignored).
    assistant.reasoning_details!.push({ type: 'reasoning.encrypted', format: 'google', data: 'gemini-signature' });
    messages.push(assistant, { role: 'tool', tool_call_id: 'toolu_01', content: '21°C, sunny' });
    const second = await gw.createCompletion({
      model: HAIKU,
      messages,
      tools: weatherTool,
      reasoning: { effort: 'low' },
    });
    expect(sent(1).messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants the weather; call the tool.', signature: 'sig-abc123' },
        { type: 'redacted_thinking', data: 'ENCRYPTED==' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
    expect(sent(1).messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '21°C, sunny' }],
    });
    expect(second.choices[0]!.message.content).toBe('Sunny, 21°C.');
    expect(second.choices[0]!.message.reasoning_details).toBeUndefined();
  });

  it("turns effort into a thinking budget of the model's output ceiling, raising max_tokens to hold it", async () => {
    const gw = gateway();
    const low = await gw.createCompletion({
      model: HAIKU,
      messages: hello,
      reasoning: { effort: 'low' },
      max_tokens: 4000,
    });
    await gw.createCompletion({ model: HAIKU, messages: hello, reasoning: { effort: 'medium' } });
    const tiny = await gw.createCompletion({ model: HAIKU, messages: hello, reasoning: { budget: 100 } });
    const forced = await gw.createCompletion({
      model: HAIKU,
      messages: hello,
      tools: weatherTool,
      tool_choice: 'required',
      reasoning_effort: 'high',
    });
    await gw.createCompletion({ model: HAIKU, messages: hello, reasoning: { effort: 'disabled' } });

    expect(sent(0)).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 12800 }, max_tokens: 16800 });
    expect(low.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'converted_parameter', param: 'max_tokens' }),
    ]);
    expect(sent(1)).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 32000 }, max_tokens: 40192 });
    expect(sent(2)).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 21333 });
    expect(tiny.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'converted_parameter', param: 'reasoning' }),
    ]);
    expect(sent(3)).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 51200 },
      max_tokens: 59392,
      tool_choice: { type: 'auto' },
    });
    expect(forced.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'converted_parameter', param: 'tool_choice' }),
    ]);
    expect(sent(4).thinking).toEqual({ type: 'disabled' });
  });

  it('sends adaptive thinking and an effort level to level-controlled models', async () => {
    const gw = gateway();
    await gw.createCompletion({ model: 'claude-opus-4-7', messages: hello, reasoning: { effort: 'high' } });
    await gw.createCompletion({ model: 'claude-opus-4-7', messages: hello, reasoning: { budget: 20_000 } });
    await gw.createCompletion({ model: 'claude-opus-4-7', messages: hello, reasoning: { effort: 'disabled' } });
    const always = await gw.createCompletion({
      model: 'claude-fable-5',
      messages: hello,
      reasoning: { effort: 'disabled' },
    });

    expect(sent(0)).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high' },
      max_tokens: 21333,
    });
    expect(sent(1)).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
    expect(sent(2).thinking).toEqual({ type: 'disabled' });
    expect(sent(2).output_config).toBeUndefined();
    expect(sent(3)).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
    expect(always.switchyard.warnings).toEqual([expect.objectContaining({ code: 'reasoning_not_disabled' })]);
  });
});

describe('Anthropic adapter, errors and retries', () => {
  it('maps 401 to AuthenticationError and keeps the key out of the message', async () => {
    server.enqueue({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key ${KEY}` } });
    const error = await gateway()
      .createCompletion({ model: HAIKU, messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({
      provider: 'anthropic',
      model: HAIKU,
      status: 401,
      code: 'authentication_error',
      retryable: false,
    });
    expect(error.message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 400 and reports provider, model, status and Anthropic's error type", async () => {
    server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'messages.0.content: empty' } });
    const error = await gateway()
      .createCompletion({ model: HAIKU, messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request_error', retryable: false });
    expect(error.message).toBe(`anthropic (${HAIKU}) answered 400: messages.0.content: empty`);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 after its retry-after, then succeeds', async () => {
    server.enqueue({
      error: {
        status: 429,
        type: 'rate_limit_error',
        message: 'Number of requests has exceeded your rate limit',
        headers: { 'retry-after': '0.005' },
      },
    });
    const response = await gateway().createCompletion({ model: HAIKU, messages: hello });
    expect(response.switchyard.attempts).toEqual([
      expect.objectContaining({ provider: 'anthropic', status: 429, outcome: 'rate_limit_error' }),
      expect.objectContaining({ outcome: 'ok' }),
    ]);
  });

  it(
    'treats 529 overloaded as retryable, and surfaces it as a RateLimitError-free ProviderError when retries run ' +
      'out',
    async () => {
      const overloaded = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } };
      server.enqueue(overloaded);
      const ok = await gateway().createCompletion({ model: HAIKU, messages: hello });
      expect(ok.switchyard.attempts.map((attempt) => attempt.status ?? attempt.outcome)).toEqual([529, 'ok']);

      server.enqueue(overloaded, overloaded);
      const error = await gateway({ retry: { maxRetries: 1, initialDelayMs: 1 } })
        .createCompletion({ model: HAIKU, messages: hello })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).not.toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 529, code: 'overloaded_error', retryable: true });
      expect(error.message).toBe(`anthropic (${HAIKU}) answered 529: Overloaded`);
    },
  );

  it('retries a stream that failed in-stream before any content reached the caller', async () => {
    server.enqueue(
      { content: [{ type: 'text', text: 'never seen' }], streamErrorAfter: 0 },
      { content: [{ type: 'text', text: 'second time lucky' }] },
    );
    const stream = await gateway().createCompletion({ model: HAIKU, messages: hello, stream: true });
    const chunks = await collect(stream);
    expect(deltaText(chunks, 'content')).toBe('second time lucky');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.role)).toHaveLength(1);
    expect(stream.switchyard.attempts).toEqual([
      expect.objectContaining({ status: 529, outcome: 'overloaded_error' }),
      expect.objectContaining({ outcome: 'ok' }),
    ]);
  });

  it('surfaces an in-stream error after content as StreamInterruptedError, without retrying', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'This answer will break off' }],
      streamErrorAfter: 2,
      streamError: { type: 'api_error', message: 'Internal server error' },
    });
    const stream = await gateway().createCompletion({ model: HAIKU, messages: hello, stream: true });
    const received: string[] = [];
    const error = await (async () => {
      try {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toMatchObject({ provider: 'anthropic', code: 'api_error', status: 502, retryable: false });
    expect(received.join('')).toBe('This answe');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a dropped connection and times out a silent server', async () => {
    server.enqueue({ reset: true });
    const response = await gateway().createCompletion({ model: HAIKU, messages: hello });
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['connection_error', 'ok']);

    server.enqueue({ delayMs: 300 });
    const error = await gateway({ timeoutMs: 50, retry: { maxRetries: 0 } })
      .createCompletion({ model: HAIKU, messages: hello })
      .catch((caught) => caught);
    expect(error).toMatchObject({ name: 'ProviderError', status: 408, code: 'timeout', retryable: true });
  });
});
