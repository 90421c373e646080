import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  Catalog,
  type CatalogData,
  createGateway,
  type GatewayOptions,
  type ModelEntry,
  ProviderError,
  RateLimitError,
  StreamInterruptedError,
} from '../../src/index.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { collect, deltaText } from '../helpers/chunks.ts';

const supports: ModelEntry['supports'] = {
  reasoning: true,
  structured_outputs: true,
  json_mode: true,
  tools: true,
  parallel_tool_calls: true,
  images: true,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: false,
};
const google = (model: string) => [{ provider: 'google', model, pricing: { input: 1, output: 4, cached_input: 0.1 } }];
const gemini = (id: string, extra: Partial<ModelEntry>): ModelEntry => ({
  id,
  name: id,
  maker: 'google',
  release_date: '2025-06-17',
  context_window: 1048576,
  max_output_tokens: 65536,
  supports,
  providers: google(id),
  ...extra,
});
const catalogData: CatalogData = {
  updated: '2026-11-22',
  models: [
    gemini('gemini-2.5-pro', {
      reasoning: { control: 'budget', can_disable: false, min_budget: 128, max_budget: 32768 },
    }),
    gemini('gemini-2.5-flash', {
      supports: { ...supports, reasoning_can_disable: true },
      reasoning: { control: 'budget', can_disable: true, min_budget: 0, max_budget: 24576 },
    }),
    gemini('gemini-3-flash-preview', {
      reasoning: { control: 'level', can_disable: false, efforts: ['minimal', 'low', 'medium', 'high'] },
    }),
    gemini('gemini-3-pro-preview', { reasoning: { control: 'level', can_disable: false, efforts: ['low', 'high'] } }),
    gemini('gemini-2.0-flash-001', {
      max_output_tokens: 8192,
      supports: { ...supports, reasoning: false, structured_outputs: false },
    }),
  ],
  aliases: {},
  synonyms: {},
};
const catalog = new Catalog(catalogData);
const API_KEY = 'AIzaSyFakeKeyForTests0123456789';

let server: FakeGeminiServer;
beforeAll(async () => {
  server = await startFakeGeminiServer();
});
afterAll(() => server.close());
afterEach(() => server.reset());

function gateway(options: Partial<GatewayOptions> & { timeoutMs?: number } = {}) {
  const { timeoutMs, ...rest } = options;
  return createGateway({
    catalog,
    env: {},
    retry: { initialDelayMs: 1, maxDelayMs: 20 },
    providers: { google: { apiKey: API_KEY, baseURL: server.url, ...(timeoutMs ? { timeoutMs } : {}) } },
    ...rest,
  });
}
const hello = [{ role: 'user' as const, content: 'Say hello' }];
const sent = (index = 0) => server.requests[index]!.body;

async function caught(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Gemini adapter, requests', () => {
  it('sends system instructions, contents and the key header, and returns the OpenAI shape', async () => {
    server.enqueue({ text: 'Hi there', usage: { promptTokenCount: 9, candidatesTokenCount: 3 } });
    const response = await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Again' },
      ],
    });
    const request = server.requests[0]!;
    expect(request.path).toBe('/v1beta/models/gemini-2.0-flash-001:generateContent');
    expect(request.headers['x-goog-api-key']).toBe(API_KEY);
    expect(request.query).toEqual({});
    expect(request.body).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in English.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Say hello' }] },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
      generationConfig: {},
    });
    expect(response).toMatchObject({
      id: expect.stringMatching(/^fake-response-\d+$/),
      object: 'chat.completion',
      model: 'gemini-2.0-flash-001',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi there', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 3,
        total_tokens: 12,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(response.switchyard).toMatchObject({
      provider: 'google',
      provider_model: 'gemini-2.0-flash-001',
      warnings: [],
    });
  });

  it('maps the generation parameters, trims stop sequences and returns one choice per candidate', async () => {
    server.enqueue({ text: 'uno', extraCandidates: [{ parts: [{ text: 'two' }], finishReason: 'MAX_TOKENS' }] });
    const response = await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: hello,
      max_tokens: 300,
      temperature: 0.4,
      top_p: 0.9,
      seed: 7,
      n: 2,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      stop: ['a', 'b', 'c', 'd', 'e', 'f'],
    });
    expect(sent().generationConfig).toEqual({
      maxOutputTokens: 300,
      temperature: 0.4,
      topP: 0.9,
      seed: 7,
      candidateCount: 2,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      stopSequences: ['a', 'b', 'c', 'd', 'e'],
    });
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'converted_parameter', param: 'stop' }),
    ]);
    expect(response.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'uno', 'stop'],
      [1, 'two', 'length'],
    ]);
  });

  it('warns about every parameter Gemini has no equivalent for, and does not send it', async () => {
    const response = await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: hello,
      max_completion_tokens: 50,
      logit_bias: { '50256': -100 },
      logprobs: true,
      top_logprobs: 2,
      user: 'u-1',
      parallel_tool_calls: false,
      store: false,
      tools: [{ type: 'function', function: { name: 'noop', parameters: { type: 'object', properties: {} } } }],
    });
    expect(sent().generationConfig).toEqual({ maxOutputTokens: 50 });
    expect(Object.keys(sent()).sort()).toEqual(['contents', 'generationConfig', 'tools']);
    expect(response.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual([
      ['unsupported_parameter', 'parallel_tool_calls'],
      ['unsupported_parameter', 'logit_bias'],
      ['unsupported_parameter', 'logprobs'],
      ['unsupported_parameter', 'top_logprobs'],
      ['unsupported_parameter', 'user'],
    ]);
  });

  it('sends images inline or by URL, guessing the MIME type', async () => {
    await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/photos/cat.webp?size=large' } },
            { type: 'image_url', image_url: { url: 'https://example.com/render' } },
          ],
        },
      ],
    });
    expect(sent().contents[0].parts).toEqual([
      { text: 'Compare these' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/photos/cat.webp?size=large' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/render' } },
    ]);
  });

  it('maps response_format to JSON mode or a JSON schema', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const jsonSchema = { type: 'json_schema' as const, json_schema: { name: 'place', schema } };
    server.enqueue({ text: '{"city":"Paris"}' }, { text: '{"city":"Paris"}' }, { text: '{}' });
    await gateway().createCompletion({ model: 'gemini-2.5-flash', messages: hello, response_format: jsonSchema });
    await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello, response_format: jsonSchema });
    await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: hello,
      response_format: { type: 'json_object' },
    });
    expect(sent(0).generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    expect(sent(1).generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(sent(2).generationConfig).toEqual({ responseMimeType: 'application/json' });
  });

  it('maps tool_choice onto functionCallingConfig', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'lookup', description: 'Find it', parameters: { type: 'object' } },
      },
    ];
    const choices = ['auto', 'required', 'none', { type: 'function', function: { name: 'lookup' } }] as const;
    for (const tool_choice of choices)
      await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello, tools, tool_choice });
    expect(sent(0).tools).toEqual([
      { functionDeclarations: [{ name: 'lookup', description: 'Find it', parametersJsonSchema: { type: 'object' } }] },
    ]);
    expect(server.requests.map((request) => request.body.toolConfig.functionCallingConfig)).toEqual([
      { mode: 'AUTO' },
      { mode: 'ANY' },
      { mode: 'NONE' },
      { mode: 'ANY', allowedFunctionNames: ['lookup'] },
    ]);
  });
});

describe('Gemini adapter, tool conversations', () => {
  it('sends tool calls and results with their ids and names, and returns function calls as tool_calls', async () => {
    server.enqueue({
      parts: [
        { text: 'Checking both.' },
        { functionCall: { id: 'fc-1', name: 'weather', args: { city: 'Oslo' } } },
        { functionCall: { name: 'time', args: {} } },
      ],
    });
    const response = await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      tools: [
        { type: 'function', function: { name: 'weather', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'time' } },
      ],
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '{"temp_c":21}' },
        { role: 'tool', tool_call_id: 'call_b', content: '14:02' },
        { role: 'user', content: 'And Oslo?' },
      ],
    });
    expect(sent().contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'call_a', name: 'weather', args: { city: 'Paris' } } },
          { functionCall: { id: 'call_b', name: 'time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_a', name: 'weather', response: { temp_c: 21 } } },
          { functionResponse: { id: 'call_b', name: 'time', response: { output: '14:02' } } },
        ],
      },
      { role: 'user', parts: [{ text: 'And Oslo?' }] },
    ]);
    expect(sent().tools[0].functionDeclarations).toEqual([
      { name: 'weather', parametersJsonSchema: { type: 'object' } },
      { name: 'time' },
    ]);
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Checking both.');
    expect(choice.message.tool_calls).toEqual([
      { id: 'fc-1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      { id: expect.stringMatching(/^call_\w+$/), type: 'function', function: { name: 'time', arguments: '{}' } },
    ]);
  });

  it('rejects a tool result that answers no earlier call, without calling Gemini', async () => {
    const error = await caught(
      gateway().createCompletion({
        model: 'gemini-2.0-flash-001',
        messages: [...hello, { role: 'tool', tool_call_id: 'nowhere', content: 'x' }],
      }),
    );
    expect(error).toMatchObject({ name: 'InvalidRequestError', status: 400, param: 'messages[1].tool_call_id' });
    expect(server.requests).toHaveLength(0);
  });

  it('carries the thought signature of a Gemini 3 function call through a two-turn tool loop', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'weather', parameters: { type: 'object' } } }];
    server.enqueue(
      {
        parts: [
          { functionCall: { id: 'fc-9', name: 'weather', args: { city: 'Rome' } }, thoughtSignature: 'c2lnLUE=' },
        ],
      },
      { parts: [{ text: 'It is sunny in Rome.', thoughtSignature: 'c2lnLUI=' }] },
    );
    const messages: any[] = [{ role: 'user', content: 'Weather in Rome?' }];
    const first = await gateway().createCompletion({ model: 'gemini-3-flash-preview', messages, tools });
    const assistant = first.choices[0]!.message;
    expect(assistant.reasoning_details).toEqual([
      { type: 'reasoning.encrypted', format: 'google', signature: 'c2lnLUE=', tool_call_id: 'fc-9' },
    ]);

    messages.push(assistant, { role: 'tool', tool_call_id: 'fc-9', content: 'sunny' });
    const second = await gateway().createCompletion({ model: 'gemini-3-flash-preview', messages, tools });
    expect(sent(1).contents[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { id: 'fc-9', name: 'weather', args: { city: 'Rome' } }, thoughtSignature: 'c2lnLUE=' }],
    });
    expect(sent(1).contents[2].parts[0].functionResponse).toEqual({
      id: 'fc-9',
      name: 'weather',
      response: { output: 'sunny' },
    });
    expect(second.choices[0]!.message).toMatchObject({
      content: 'It is sunny in Rome.',
      reasoning_details: [{ type: 'reasoning.encrypted', format: 'google', signature: 'c2lnLUI=' }],
    });
    // A signature on a text part goes back on that turn's first part.
    messages.push(second.choices[0]!.message, { role: 'user', content: 'Thanks' });
    await gateway().createCompletion({ model: 'gemini-3-flash-preview', messages, tools });
    expect(sent(2).contents[3]).toEqual({
      role: 'model',
      parts: [{ text: 'It is sunny in Rome.', thoughtSignature: 'c2lnLUI=' }],
    });
  });

  it('sends the documented placeholder signature for a Gemini 3 history that never had one', async () => {
    const history = [
      { role: 'user' as const, content: 'Weather?' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: 'toolu_1', type: 'function' as const, function: { name: 'weather', arguments: '{}' } }],
      },
      { role: 'tool' as const, tool_call_id: 'toolu_1', content: 'rain' },
    ];
    await gateway().createCompletion({ model: 'gemini-3-pro-preview', messages: history });
    await gateway().createCompletion({ model: 'gemini-2.5-flash', messages: history });
    expect(sent(0).contents[1].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
    expect(sent(1).contents[1].parts[0]).not.toHaveProperty('thoughtSignature');
  });
});

describe('Gemini adapter, responses', () => {
  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['IMAGE_SAFETY', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    ['OTHER', 'stop'],
  ])('maps finishReason %s to %s', async (finishReason, expected) => {
    server.enqueue({ text: 'x', finishReason });
    const response = await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello });
    expect(response.choices[0]!.finish_reason).toBe(expected);
  });

  it('answers a blocked prompt with content_filter and a refusal', async () => {
    server.enqueue({ blockReason: 'PROHIBITED_CONTENT' });
    const response = await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello });
    expect(response.choices).toEqual([
      {
        index: 0,
        logprobs: null,
        finish_reason: 'content_filter',
        message: { role: 'assistant', content: null, refusal: expect.stringContaining('PROHIBITED_CONTENT') },
      },
    ]);
  });

  it('separates thoughts from the answer and counts tool-use, cached and thinking tokens', async () => {
    server.enqueue({
      parts: [{ text: 'Let me think.', thought: true }, { text: 'The answer is 4.' }],
      usage: {
        promptTokenCount: 100,
        toolUsePromptTokenCount: 20,
        cachedContentTokenCount: 60,
        candidatesTokenCount: 10,
        thoughtsTokenCount: 30,
      },
    });
    const response = await gateway().createCompletion({
      model: 'gemini-2.5-flash',
      messages: hello,
      reasoning: { effort: 'low' },
    });
    expect(response.choices[0]!.message).toMatchObject({
      content: 'The answer is 4.',
      reasoning_content: 'Let me think.',
    });
    expect(response.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 40,
      total_tokens: 160,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
  });
});

describe('Gemini adapter, reasoning', () => {
  it.each([
    [
      'gemini-2.5-pro',
      { effort: 'disabled' },
      { thinkingBudget: 128, includeThoughts: true },
      'reasoning_not_disabled',
    ],
    ['gemini-2.5-pro', { effort: 'low' }, { thinkingBudget: 13107, includeThoughts: true }, undefined],
    ['gemini-2.5-pro', { effort: 'high' }, { thinkingBudget: 32768, includeThoughts: true }, 'converted_parameter'],
    ['gemini-2.5-pro', { budget: 64 }, { thinkingBudget: 128, includeThoughts: true }, 'converted_parameter'],
    ['gemini-2.5-flash', { effort: 'disabled' }, { thinkingBudget: 0 }, undefined],
    ['gemini-2.5-flash', { effort: 'high' }, { thinkingBudget: 24576, includeThoughts: true }, 'converted_parameter'],
    ['gemini-2.5-flash', { budget: 2048 }, { thinkingBudget: 2048, includeThoughts: true }, undefined],
    [
      'gemini-3-flash-preview',
      { effort: 'disabled' },
      { thinkingLevel: 'MINIMAL', includeThoughts: true },
      'reasoning_not_disabled',
    ],
    ['gemini-3-flash-preview', { effort: 'medium' }, { thinkingLevel: 'MEDIUM', includeThoughts: true }, undefined],
    [
      'gemini-3-pro-preview',
      { effort: 'medium' },
      { thinkingLevel: 'HIGH', includeThoughts: true },
      'converted_parameter',
    ],
    ['gemini-3-pro-preview', { effort: 'low' }, { thinkingLevel: 'LOW', includeThoughts: true }, undefined],
    [
      'gemini-3-pro-preview',
      { effort: 'disabled' },
      { thinkingLevel: 'LOW', includeThoughts: true },
      'reasoning_not_disabled',
    ],
  ] as const)('%s with %j sends %j', async (model, reasoning, thinkingConfig, warning) => {
    const response = await gateway().createCompletion({ model, messages: hello, reasoning });
    expect(sent().generationConfig).toEqual({ thinkingConfig });
    expect(response.switchyard.warnings.map((entry) => entry.code)).toEqual(warning ? [warning] : []);
  });

  it('raises maxOutputTokens when the thinking budget would leave no room for the answer', async () => {
    const response = await gateway().createCompletion({
      model: 'gemini-2.5-flash',
      messages: hello,
      max_tokens: 500,
      reasoning: { budget: 2048 },
    });
    expect(sent().generationConfig).toEqual({
      maxOutputTokens: 2548,
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    });
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'converted_parameter', param: 'max_tokens' }),
    ]);
  });

  it('sends no thinking config when the caller sets no reasoning', async () => {
    await gateway().createCompletion({ model: 'gemini-2.5-pro', messages: hello });
    expect(sent().generationConfig).toEqual({});
  });
});

describe('Gemini adapter, streaming', () => {
  it('streams text over SSE, with the usage chunk only when asked', async () => {
    server.enqueue(
      { text: 'Hello, streaming world', usage: { promptTokenCount: 5, candidatesTokenCount: 4 } },
      { text: 'Hello again' },
    );
    const stream = await gateway().createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await collect(stream);
    expect(server.requests[0]!.path).toBe('/v1beta/models/gemini-2.0-flash-001:streamGenerateContent');
    expect(server.requests[0]!.query).toEqual({ alt: 'sse' });
    expect(chunks[0]!.choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '' },
      logprobs: null,
      finish_reason: null,
    });
    expect(deltaText(chunks, 'content')).toBe('Hello, streaming world');
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
    });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^fake-response-\d+$/);

    const plain = await collect(
      await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello, stream: true }),
    );
    expect(plain.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk))).toBe(true);
    expect(deltaText(plain, 'content')).toBe('Hello again');
  });

  it('streams thoughts first, then the answer, function calls whole and their signatures', async () => {
    server.enqueue({
      parts: [
        { text: 'Thinking it through.', thought: true },
        { text: 'Calling.' },
        { functionCall: { id: 'fc-1', name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnLTE=' },
        { functionCall: { name: 'time', args: {} } },
      ],
    });
    const chunks = await collect(
      await gateway().createCompletion({
        model: 'gemini-3-flash-preview',
        messages: hello,
        reasoning: { effort: 'low' },
        stream: true,
        tools: [
          { type: 'function', function: { name: 'weather' } },
          { type: 'function', function: { name: 'time' } },
        ],
      }),
    );
    const deltas = chunks.map((chunk) => chunk.choices[0]!.delta);
    const firstContent = deltas.findIndex((delta) => delta.content);
    expect(deltas.findIndex((delta) => delta.reasoning_content)).toBeLessThan(firstContent);
    expect(deltaText(chunks, 'reasoning_content')).toBe('Thinking it through.');
    expect(deltaText(chunks, 'content')).toBe('Calling.');
    const calls = deltas.flatMap((delta) => delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'fc-1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      { index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'time', arguments: '{}' } },
    ]);
    expect(deltas.find((delta) => delta.tool_calls?.[0]?.id === 'fc-1')!.reasoning_details).toEqual([
      { type: 'reasoning.encrypted', format: 'google', signature: 'c2lnLTE=', tool_call_id: 'fc-1' },
    ]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streams a blocked prompt as a refusal with content_filter', async () => {
    server.enqueue({ blockReason: 'SAFETY' });
    const chunks = await collect(
      await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello, stream: true }),
    );
    expect(chunks.map((chunk) => chunk.choices[0]!.delta.refusal ?? null).join('')).toContain('SAFETY');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('content_filter');
  });

  it('surfaces an error after the first chunk as StreamInterruptedError, without retrying', async () => {
    server.enqueue({ text: 'This answer will break off', streamErrorAfter: 2 });
    const stream = await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello, stream: true });
    const received: string[] = [];
    const error = await caught(
      (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    );
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toMatchObject({ provider: 'google', status: 500, code: 'INTERNAL' });
    expect(received.join('')).toBe('This answe');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream that dropped before its first chunk', async () => {
    server.enqueue({ reset: true }, { text: 'second time lucky' });
    const stream = await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello, stream: true });
    expect(deltaText(await collect(stream), 'content')).toBe('second time lucky');
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['connection_error', 'ok']);
  });
});

describe('Gemini adapter, errors and retries', () => {
  it('maps API_KEY_INVALID to AuthenticationError, not retried, with no key in the message', async () => {
    server.enqueue({
      error: {
        status: 400,
        googleStatus: 'INVALID_ARGUMENT',
        reason: 'API_KEY_INVALID',
        message: `API key not valid: ${API_KEY}`,
      },
    });
    const error = await caught(gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({
      provider: 'google',
      model: 'gemini-2.0-flash-001',
      status: 401,
      code: 'API_KEY_INVALID',
      retryable: false,
    });
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error.attempts)).not.toContain(API_KEY);
    expect(String(error.cause?.message)).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('maps 403 PERMISSION_DENIED to AuthenticationError', async () => {
    server.enqueue({ error: { status: 403, googleStatus: 'PERMISSION_DENIED', message: 'Permission denied.' } });
    const error = await caught(gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 403, code: 'PERMISSION_DENIED', retryable: false });
  });

  it('retries a 429 after its RetryInfo delay, then succeeds', async () => {
    server.enqueue({
      error: { status: 429, googleStatus: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded.', retryDelay: '0.005s' },
    });
    const response = await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello });
    expect(response.switchyard.attempts).toEqual([
      expect.objectContaining({ provider: 'google', status: 429, outcome: 'RESOURCE_EXHAUSTED' }),
      expect.objectContaining({ provider: 'google', outcome: 'ok' }),
    ]);
  });

  it('gives up on repeated 429s with a RateLimitError carrying retryAfterMs', async () => {
    const quota = { status: 429, googleStatus: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded.', retryDelay: '0.005s' };
    server.enqueue({ error: quota }, { error: quota }, { error: quota });
    const error = await caught(gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'RESOURCE_EXHAUSTED', retryable: true, retryAfterMs: 5 });
    expect(server.requests).toHaveLength(3);
  });

  it.each([
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
  ])('retries a %i %s', async (status, googleStatus) => {
    server.enqueue({ error: { status, googleStatus, message: 'Try again later.' } });
    const response = await gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello });
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual([googleStatus, 'ok']);
  });

  it('does not retry a 400 INVALID_ARGUMENT', async () => {
    server.enqueue({
      error: { status: 400, googleStatus: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' },
    });
    const error = await caught(gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', retryable: false });
    expect(error.message).toContain('Invalid JSON payload received.');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a dropped connection and a timeout', async () => {
    server.enqueue({ reset: true }, { delayMs: 300 }, { text: 'finally' });
    const response = await gateway({ timeoutMs: 100 }).createCompletion({
      model: 'gemini-2.0-flash-001',
      messages: hello,
    });
    expect(response.choices[0]!.message.content).toBe('finally');
    expect(response.switchyard.attempts).toEqual([
      expect.objectContaining({ status: 502, outcome: 'connection_error' }),
      expect.objectContaining({ status: 408, outcome: 'timeout' }),
      expect.objectContaining({ outcome: 'ok' }),
    ]);
  });

  it('stops without retrying when the caller aborts', async () => {
    server.enqueue({ delayMs: 2_000 });
    const controller = new AbortController();
    const call = caught(
      gateway().createCompletion({ model: 'gemini-2.0-flash-001', messages: hello }, { signal: controller.signal }),
    );
    // Aborted while the provider has the request and has not answered yet.
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    const error = await call;
    expect(error).toMatchObject({ provider: 'google', code: 'aborted', retryable: false });
    expect(server.requests).toHaveLength(1);
  });
});
