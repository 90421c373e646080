import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  type CompletionChunk,
  createGateway,
  MissingCredentialsError,
  ProviderError,
  RateLimitError,
  StreamInterruptedError,
} from '../../src/index.ts';
import { assembleToolCalls, collect } from '../helpers/chunks.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

const server = await useFakeOpenAIServer();

const hello = [{ role: 'user' as const, content: 'Say hello' }];

describe('OpenAI adapter, non-streaming', () => {
  it('sends the OpenAI body through the SDK and returns the OpenAI shape', async () => {
    server.enqueue({ content: 'Hi there', usage: { prompt_tokens: 9, completion_tokens: 3, cached_tokens: 4 } });
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: hello,
      temperature: 0.3,
      max_tokens: 50,
      metadata: { agent_id: 'greeter', trace_id: 't-1' },
    });

    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer test-key-openai');
    expect(sent.body).toEqual({
      model: 'gpt-4o-2024-11-20',
      messages: hello,
      temperature: 0.3,
      max_completion_tokens: 50,
    });

    expect(response.object).toBe('chat.completion');
    expect(response.model).toBe('gpt-4o-2024-11-20');
    expect(response.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hi there', refusal: null });
    expect(response.choices[0]!.finish_reason).toBe('stop');
    expect(response.usage).toMatchObject({
      prompt_tokens: 9,
      completion_tokens: 3,
      total_tokens: 12,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(response.switchyard).toMatchObject({
      model: 'gpt-4o-2024-11-20',
      provider: 'openai',
      provider_model: 'gpt-4o-2024-11-20',
      agent_id: 'greeter',
      warnings: [],
    });
    expect(response.switchyard.attempts).toEqual([expect.objectContaining({ provider: 'openai', outcome: 'ok' })]);
  });

  it('passes tools and image parts through, and returns tool calls', async () => {
    server.enqueue({
      content: null,
      tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    const gateway = gatewayAgainst(server.url);
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'Weather where this photo was taken?' },
          { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ];
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    ];
    const response = await gateway.createCompletion({ model: 'gpt-4o', messages, tools, tool_choice: 'auto' });

    expect(server.requests[0]!.body).toMatchObject({ messages, tools, tool_choice: 'auto' });
    expect(response.choices[0]!.finish_reason).toBe('tool_calls');
    expect(response.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
  });

  it('drops parameters a reasoning model rejects, with warnings, and sends the effort', async () => {
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({
      model: 'o3-latest',
      messages: hello,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 4000,
      reasoning: { budget: 30_000 },
    });
    expect(server.requests[0]!.body).toEqual({
      model: 'o3-2025-04-16',
      messages: hello,
      max_completion_tokens: 4000,
      reasoning_effort: 'medium',
    });
    expect(response.switchyard.warnings.map((warning) => warning.param)).toEqual(['temperature', 'top_p']);
  });

  it('throws UnsupportedParameterError instead when the gateway is strict', async () => {
    const gateway = gatewayAgainst(server.url, { strict: true });
    await expect(
      gateway.createCompletion({ model: 'o3-latest', messages: hello, temperature: 0.2 }),
    ).rejects.toMatchObject({
      name: 'UnsupportedParameterError',
      status: 400,
      param: 'temperature',
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAI adapter, streaming', () => {
  it('yields chunks exactly like openai-node, with the usage chunk only when asked', async () => {
    const gateway = gatewayAgainst(server.url);
    server.enqueue({ content: 'Hello, streaming world' }, { content: 'Hello, streaming world' });

    const direct = new OpenAI({ apiKey: 'test-key-openai', baseURL: server.url });
    const directChunks = await collect(
      (await direct.chat.completions.create({
        model: 'gpt-4o-2024-11-20',
        messages: hello,
        stream: true,
        stream_options: { include_usage: true },
      })) as AsyncIterable<CompletionChunk>,
    );
    const stream = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const ours = await collect(stream);

    const shape = (chunks: CompletionChunk[]) => chunks.map(({ id: _id, ...rest }) => rest);
    expect(shape(ours)).toEqual(shape(directChunks));
    expect(ours.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 7 } });
    expect(ours.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello, streaming world');
    expect(stream.switchyard.provider).toBe('openai');
    // The provider is always asked for usage (for cost records) and never for obfuscation padding.
    expect(server.requests[1]!.body.stream_options).toEqual({ include_usage: true, include_obfuscation: false });
  });

  it('leaves out the usage chunk and usage fields when the caller did not ask', async () => {
    const gateway = gatewayAgainst(server.url);
    const chunks = await collect(
      await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello, stream: true }),
    );
    expect(chunks.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk))).toBe(true);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('streams tool-call argument deltas by index', async () => {
    server.enqueue({
      content: null,
      tool_calls: [
        { id: 'call_a', name: 'lookup', arguments: '{"q":"first query"}' },
        { id: 'call_b', name: 'lookup', arguments: '{"q":"second"}' },
      ],
    });
    const gateway = gatewayAgainst(server.url);
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const chunks = await collect(
      await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello, tools, stream: true }),
    );
    const calls = assembleToolCalls(chunks);
    expect(calls).toEqual({
      0: { id: 'call_a', name: 'lookup', arguments: '{"q":"first query"}' },
      1: { id: 'call_b', name: 'lookup', arguments: '{"q":"second"}' },
    });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('surfaces a failure after the first chunk as StreamInterruptedError, without retrying', async () => {
    server.enqueue({ content: 'This answer will break off', streamErrorAfter: 2 });
    // gpt-4o-latest has further offerings: without the opt-out the stream would go on there (stream-failover tests).
    const gateway = gatewayAgainst(server.url, { streamFailover: false });
    const stream = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello, stream: true });
    const received: string[] = [];
    const error = await (async () => {
      try {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(received.join('')).toBe('This answe');
    expect(server.requests).toHaveLength(1);
  });

  it('surfaces a stream truncated mid-way (connection closed, no finish) as StreamInterruptedError', async () => {
    server.enqueue({ content: 'This answer is cut short', truncateAfter: 2 });
    const gateway = gatewayAgainst(server.url);
    const request = { model: 'gpt-4o-latest', messages: hello, stream: true as const, stream_failover: false };
    const stream = await gateway.createCompletion(request);
    await expect(collect(stream)).rejects.toBeInstanceOf(StreamInterruptedError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream whose connection dropped before anything reached the caller', async () => {
    server.enqueue({ reset: true }, { content: 'second time lucky' });
    const gateway = gatewayAgainst(server.url);
    const stream = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello, stream: true });
    const text = (await collect(stream)).map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('second time lucky');
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['connection_error', 'ok']);
  });
});

describe('OpenAI adapter, errors and retries', () => {
  it('retries a 429, honouring retry-after-ms, then succeeds', async () => {
    server.enqueue({
      error: {
        status: 429,
        message: 'Rate limit reached',
        type: 'requests',
        code: 'rate_limit_exceeded',
        headers: { 'retry-after-ms': '5' },
      },
    });
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(response.switchyard.attempts).toEqual([
      expect.objectContaining({ provider: 'openai', status: 429, outcome: 'rate_limit_exceeded' }),
      expect.objectContaining({ provider: 'openai', outcome: 'ok' }),
    ]);
  });

  it('falls back to the next provider of the model after repeated 5xx', async () => {
    server.enqueue(
      { error: { status: 500, message: 'boom', type: 'server_error' } },
      { error: { status: 503, message: 'slow down', type: 'server_error' } },
      { error: { status: 500, message: 'boom again', type: 'server_error' } },
      { content: 'served by openrouter' },
    );
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(response.choices[0]!.message.content).toBe('served by openrouter');
    expect(response.switchyard.provider).toBe('openrouter');
    expect(server.requests.at(-1)!.body.model).toBe('openai/gpt-4o-2024-11-20');
    expect(
      response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.status ?? attempt.outcome}`),
    ).toEqual(['openai:500', 'openai:503', 'openai:500', 'openrouter:ok']);
  });

  it('does not retry a 400 and reports the provider, model and status', async () => {
    server.enqueue({ error: { status: 400, message: "Invalid value for 'messages'", code: 'invalid_value' } });
    const gateway = gatewayAgainst(server.url);
    const error = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      status: 400,
      provider: 'openai',
      model: 'gpt-4o-2024-11-20',
      code: 'invalid_value',
      retryable: false,
    });
    expect(error.message).toContain('openai (gpt-4o-2024-11-20) answered 400');
    expect(error.attempts).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('maps 401 to AuthenticationError and keeps the key out of the message', async () => {
    server.enqueue({
      error: { status: 401, message: 'Incorrect API key provided: test-key-openai.', code: 'invalid_api_key' },
    });
    const gateway = gatewayAgainst(server.url);
    const error = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).not.toContain('test-key-openai');
    expect(JSON.stringify(error.attempts)).not.toContain('test-key-openai');
  });

  it('does not retry insufficient_quota, a 429 that waiting will not fix', async () => {
    server.enqueue({ error: { status: 429, message: 'You exceeded your current quota', code: 'insufficient_quota' } });
    const gateway = gatewayAgainst(server.url);
    const error = await gateway.createCompletion({ model: 'o3-latest', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('takes a per-call retry policy', async () => {
    server.enqueue({ error: { status: 503, message: 'overloaded', type: 'server_error' } });
    const gateway = gatewayAgainst(server.url);
    const error = await gateway
      .createCompletion({ model: 'o3-latest', messages: hello }, { retry: { maxRetries: 0 } })
      .catch((caught) => caught);
    expect(error.attempts).toHaveLength(1);
  });

  it('gives up after the retries and throws the last error with the whole chain', async () => {
    server.enqueue(
      ...Array.from({ length: 3 }, () => ({ error: { status: 503, message: 'overloaded', type: 'server_error' } })),
    );
    const gateway = gatewayAgainst(server.url);
    const error = await gateway.createCompletion({ model: 'o3-latest', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(503);
    expect(error.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([503, 503, 503]);
  });

  it('times out a provider that does not answer, as a retryable failure', async () => {
    // One attempt, one slow reply: a reply left in the queue would answer the next test's request, 300 ms late.
    server.enqueue({ delayMs: 300 });
    const gateway = gatewayAgainst(server.url, { timeoutMs: 50, retry: { maxRetries: 0 } });
    const error = await gateway.createCompletion({ model: 'o3-latest', messages: hello }).catch((caught) => caught);
    expect(error).toMatchObject({ name: 'ProviderError', status: 408, code: 'timeout', retryable: true });
    // The server may read the abandoned request after the client gave up (a busy worker, a loaded machine): it is
    // this test's, and must not be recorded as the next test's first request (seen once: "Bearer test-key-openai"
    // where the credentials test expected "Bearer or-key").
    await expect.poll(() => server.requests.length).toBe(1);
  });
});

describe('credentials', () => {
  it('names the variable to set when no provider of the model has a key', async () => {
    const gateway = createGateway({ catalog: testCatalog, env: {} });
    const error = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(MissingCredentialsError);
    // The server's configuration is missing something, not the caller's key: never a 401.
    expect(error).toMatchObject({ status: 503, type: 'server_error', code: 'provider_not_configured' });
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('OPENROUTER_API_KEY');
    expect(error.message).toContain('AZURE_API_KEY');
    expect(
      error.attempts.map((attempt: { provider: string; outcome: string }) => `${attempt.provider}:${attempt.outcome}`),
    ).toEqual(['openai:missing_credentials', 'openrouter:missing_credentials', 'azure:missing_credentials']);
  });

  it('uses the next provider that has credentials, read from <NAME>_API_KEY and <NAME>_BASE_URL', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      env: { OPENROUTER_API_KEY: 'or-key', OPENROUTER_BASE_URL: server.url },
    });
    const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(response.switchyard.provider).toBe('openrouter');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer or-key');
    expect(response.switchyard.attempts[0]).toMatchObject({ provider: 'openai', outcome: 'missing_credentials' });
  });

  it('lets options override the environment', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      env: { OPENAI_API_KEY: 'env-key', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      providers: { openai: { apiKey: 'option-key', baseURL: server.url } },
    });
    await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer option-key');
  });
});
