import { describe, expect, it } from 'vitest';
import { createGateway, ProviderError, RateLimitError, StreamInterruptedError } from '../src/index.ts';
import { MAX_REMEMBERED_CALLS } from '../src/providers/mock/simulator.ts';
import { createMockProvider } from '../src/testing/index.ts';
import { collect } from './helpers/chunks.ts';
import { testCatalog } from './helpers/test-catalog.ts';

const hello = [{ role: 'user' as const, content: 'What is the capital of France?' }];

describe('the simulator (mock: true)', () => {
  const gateway = createGateway({ mock: true });

  it('answers every catalog id deterministically, without network', async () => {
    const ids = gateway.listModels().data.map((model) => model.id);
    expect(ids.length).toBeGreaterThanOrEqual(100);
    for (const id of ids) {
      const first = await gateway.createCompletion({ model: id, messages: hello });
      const second = await gateway.createCompletion({ model: id, messages: hello });
      expect(first.choices[0]!.message.content).toBe(second.choices[0]!.message.content);
      expect(first.choices[0]!.message.content).toContain('What is the capital of France?');
      expect(first.switchyard.provider).toBe('mock');
      expect(first.usage!.total_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens);
    }
  });

  it('streams the same text, with a usage chunk when asked', async () => {
    const plain = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    const chunks = await collect(
      await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: hello,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      plain.choices[0]!.message.content,
    );
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: plain.usage });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('answers a forced tool call with arguments that fit the tool schema', async () => {
    const response = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: hello,
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup_city',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string', examples: ['Paris'] }, limit: { type: 'integer', minimum: 1 } },
              required: ['city'],
            },
          },
        },
      ],
      tool_choice: 'required',
    });
    expect(response.choices[0]!.finish_reason).toBe('tool_calls');
    expect(
      JSON.parse(
        response.choices[0]!.message.tool_calls![0]!.type === 'function'
          ? response.choices[0]!.message.tool_calls![0]!.function.arguments
          : '',
      ),
    ).toEqual({ city: 'Paris', limit: 1 });
  });

  it('answers json_schema requests with an instance of the schema', async () => {
    const response = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: hello,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          schema: {
            type: 'object',
            properties: {
              capital: { type: 'string' },
              population: { type: 'integer', minimum: 0 },
              tags: { type: 'array', items: { enum: ['city', 'capital'] } },
            },
            required: ['capital'],
          },
        },
      },
    });
    expect(JSON.parse(response.choices[0]!.message.content!)).toEqual({
      capital: 'example',
      population: 0,
      tags: ['city'],
    });
  });

  it('emits reasoning_content first, and counts reasoning tokens, on reasoning models asked to reason', async () => {
    const reasoningModel = gateway
      .listModels({ reasoning: true })
      .data.find((model) => model.reasoning?.control === 'effort')!;
    const chunks = await collect(
      await gateway.createCompletion({
        model: reasoningModel.id,
        messages: hello,
        reasoning: { effort: 'high' },
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const order = chunks.flatMap((chunk) =>
      chunk.choices[0]?.delta.reasoning_content ? ['r'] : chunk.choices[0]?.delta.content ? ['c'] : [],
    );
    expect(order[0]).toBe('r');
    expect(order.lastIndexOf('r')).toBeLessThan(order.indexOf('c'));
    expect(chunks.at(-1)!.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
  });
});

describe('a scripted simulator (switchyard/testing)', () => {
  it('hands out queued replies in order, then falls back to respond()', async () => {
    const mock = createMockProvider({
      replies: ['first', { content: 'second', usage: { prompt_tokens: 3, completion_tokens: 2 } }],
      respond: (request) => `echo ${request.model}`,
    });
    const gateway = createGateway({ catalog: testCatalog, mock });
    const contents = [];
    for (let index = 0; index < 3; index++) {
      contents.push(
        (await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello })).choices[0]!.message.content,
      );
    }
    expect(contents).toEqual(['first', 'second', 'echo gpt-4o-2024-11-20']);
    expect(mock.calls).toHaveLength(3);
    expect(mock.calls[0]!.body.messages).toEqual(hello);
  });

  it('scripts errors that go through the same retries', async () => {
    const mock = createMockProvider({
      replies: [{ error: { status: 429, message: 'slow down', retry_after_ms: 1 } }, 'after the retry'],
    });
    const gateway = createGateway({ catalog: testCatalog, mock });
    const response = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(response.choices[0]!.message.content).toBe('after the retry');
    expect(response.switchyard.attempts.map((attempt) => attempt.status ?? attempt.outcome)).toEqual([429, 'ok']);

    mock.enqueue({ error: { status: 400, message: 'bad request' } });
    const error = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).not.toBeInstanceOf(RateLimitError);
    expect(error.status).toBe(400);
  });

  it('uses fallback models after the first model keeps failing', async () => {
    const mock = createMockProvider({
      respond: (request) =>
        request.model === 'gpt-4o-2024-11-20' ? { error: { status: 503 } } : `served by ${request.model}`,
    });
    const gateway = createGateway({ catalog: testCatalog, mock, retry: { initialDelayMs: 1, maxRetries: 1 } });
    const response = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: hello,
      fallbacks: ['mistral-large-latest'],
    });
    expect(response.choices[0]!.message.content).toBe('served by mistral-large-2411');
    expect(response.model).toBe('mistral-large-2411');
    // As in production: every provider of the model is tried (here the simulator stands in for each), then the
    // fallback.
    const providers = testCatalog.find('gpt-4o-latest')!.providers.length;
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual([
      ...Array(providers * 2).fill('server_error'),
      'ok',
    ]);
    expect(response.switchyard.attempts.every((attempt) => attempt.provider === 'mock')).toBe(true);
  });

  it('scripts tool calls, refusals and a stream that breaks off', async () => {
    const mock = createMockProvider({
      replies: [
        { tool_calls: [{ name: 'search', arguments: { q: 'paris' } }] },
        { refusal: 'I cannot help with that.' },
        { content: 'partial answer', stream_error: { status: 500, message: 'upstream died' } },
        { content: 'and the rest.' },
        { content: 'partial answer', stream_error: { status: 500, message: 'upstream died' } },
      ],
    });
    const gateway = createGateway({ catalog: testCatalog, mock });
    const tool = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(tool.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ type: 'function', function: { name: 'search', arguments: '{"q":"paris"}' } }] },
    });
    const refusal = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(refusal.choices[0]).toMatchObject({
      finish_reason: 'content_filter',
      message: { content: null, refusal: 'I cannot help with that.' },
    });
    // The model has a further offering, so the break goes on there (stream failover, on by default)…
    const spliced = await gateway.createCompletion({ model: 'gpt-4o-latest', messages: hello, stream: true });
    const text = (await collect(spliced)).map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text).toMatch(/^partial answer.*and the rest\.$/);
    // …and without it the break reaches the caller.
    const stream = await gateway.createCompletion({
      model: 'gpt-4o-latest',
      messages: hello,
      stream: true,
      stream_failover: false,
    });
    await expect(collect(stream)).rejects.toBeInstanceOf(StreamInterruptedError);
  });
});

describe('the simulator over a long run', () => {
  it(`remembers the last ${MAX_REMEMBERED_CALLS} requests, not every one`, async () => {
    const mock = createMockProvider({ respond: () => ({ content: 'ok' }) });
    const gateway = createGateway({ mock, records: false });
    const total = MAX_REMEMBERED_CALLS + 25;
    for (let index = 0; index < total; index++)
      await gateway.createCompletion({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `call ${index}` }] });
    expect(mock.calls).toHaveLength(MAX_REMEMBERED_CALLS);
    expect(mock.calls.at(-1)!.body.messages.at(-1)).toMatchObject({ content: `call ${total - 1}` });
    expect(mock.calls[0]!.body.messages.at(-1)).toMatchObject({ content: 'call 25' });
  }, 60_000);
});
