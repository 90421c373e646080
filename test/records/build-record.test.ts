import { describe, expect, it } from 'vitest';
import { type ChatCompletionMessageParam, createGateway, ProviderError } from '../../src/index.ts';
import {
  buildCallRecord,
  type CallRecord,
  redactRecord,
  StreamRecorder,
  uuidv7Timestamp,
} from '../../src/records/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';

const pricing = { input: 2.5, output: 10, cached_input: 1.25 };

describe('buildCallRecord', () => {
  it('records a non-streamed answer from the gateway, with metadata split into its fields', async () => {
    const gateway = createGateway({ mock: true });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Capital of {{country}}?' }];
    const request = {
      model: 'gpt-4o-latest',
      messages,
      input: { country: 'France' },
      metadata: { agent_id: 'geo', trace_id: 't-1', workflow_name: 'quiz', customer: 'acme' },
    };
    const startedAt = Date.now();
    const response = await gateway.createCompletion(request);
    const record = buildCallRecord({
      request,
      startedAt,
      info: response.switchyard,
      response,
      pricing,
      deploymentId: 'dep-1',
    });
    // The caller's agent loop goes on with the same array: the record keeps what was sent.
    messages.push({ role: 'assistant', content: 'later turn' });

    expect(record).toMatchObject({
      created_at: new Date(startedAt).toISOString(),
      agent_id: 'geo',
      trace_id: 't-1',
      workflow_name: 'quiz',
      metadata: { customer: 'acme' },
      deployment_id: 'dep-1',
      requested_model: 'gpt-4o-latest',
      model: response.switchyard.model,
      provider: 'mock',
      provider_model: response.switchyard.provider_model,
      input_messages: [{ role: 'user', content: 'Capital of {{country}}?' }],
      input: { country: 'France' },
      output: { content: response.choices[0]!.message.content, tool_calls: [], refusal: null, finish_reason: 'stop' },
      usage: { prompt_tokens: response.usage!.prompt_tokens, completion_tokens: response.usage!.completion_tokens },
      stream: false,
      status: 'ok',
      error: null,
      time_to_first_token_ms: null,
    });
    expect(uuidv7Timestamp(record.id)).toBe(startedAt);
    expect(record.attempts).toEqual(response.switchyard.attempts);
    expect(record.cost_usd).toBeGreaterThan(0);
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
  });

  it('records a stream: the assembled answer, the usage chunk and the time to first token', async () => {
    const gateway = createGateway({ mock: true });
    const request = {
      model: 'gpt-4o-latest',
      messages: [{ role: 'user' as const, content: 'Say hi' }],
      stream: true as const,
      stream_options: { include_usage: true },
    };
    const startedAt = Date.now();
    const stream = await gateway.createCompletion(request);
    const recorder = new StreamRecorder();
    let text = '';
    for await (const chunk of stream) {
      recorder.observe(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    const record = buildCallRecord({
      request,
      startedAt,
      info: stream.switchyard,
      stream: recorder.summary(),
      pricing,
    });
    expect(record.stream).toBe(true);
    expect(record.output).toMatchObject({ content: text, finish_reason: 'stop' });
    expect(record.usage.prompt_tokens).toBeGreaterThan(0);
    expect(record.time_to_first_token_ms).not.toBeNull();
    expect(record.time_to_first_token_ms!).toBeLessThanOrEqual(record.latency_ms);
  });

  it('assembles streamed tool calls, reasoning and usage from deltas', () => {
    const recorder = new StreamRecorder();
    const chunk = (delta: object, finish: string | null = null, usage?: object) =>
      ({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
        ...(usage ? { usage } : {}),
      }) as never;
    recorder.observe(chunk({ role: 'assistant', content: '' }));
    expect(recorder.summary().firstTokenAt).toBeNull();
    recorder.observe(chunk({ reasoning_content: 'think' }));
    recorder.observe(
      chunk({
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":' } }],
      }),
    );
    recorder.observe(chunk({ tool_calls: [{ index: 0, function: { arguments: '"paris"}' } }] }));
    recorder.observe(chunk({}, 'tool_calls'));
    recorder.observe({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    });
    const summary = recorder.summary();
    expect(summary.firstTokenAt).not.toBeNull();
    expect(summary.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 7 });
    expect(summary.output).toEqual({
      content: null,
      reasoning_content: 'think',
      refusal: null,
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"paris"}' } }],
    });
  });

  it('records a failure with its error and attempt chain, and scrubs credentials from messages', async () => {
    const mock = createMockProvider({
      replies: [{ error: { status: 400, message: 'bad key sk-abcdefghijklmnop1234 rejected' } }],
    });
    const gateway = createGateway({ mock });
    const request = {
      model: 'gpt-4o-latest',
      messages: [{ role: 'user' as const, content: 'hi' }],
      metadata: { agent_id: 'a' },
    };
    const startedAt = Date.now();
    const error = await gateway.createCompletion(request).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProviderError);
    const record = buildCallRecord({ request, startedAt, error, model: 'gpt-4o-2024-11-20', pricing });
    expect(record).toMatchObject({
      status: 'error',
      model: 'gpt-4o-2024-11-20',
      provider: null,
      output: null,
      cost_usd: 0,
      agent_id: 'a',
      error: { type: 'invalid_request_error', status: 400 },
      usage: { prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, cached_tokens: 0 },
    });
    expect(record.attempts).toHaveLength(1);
    expect(JSON.stringify(record)).not.toContain('sk-abcdefghijklmnop1234');
  });

  it('records anything thrown, Error or not', () => {
    const request = { model: 'x', messages: [] };
    expect(buildCallRecord({ request, startedAt: 0, error: new TypeError('boom') }).error).toEqual({
      type: 'TypeError',
      code: null,
      status: null,
      message: 'boom',
    });
    expect(buildCallRecord({ request, startedAt: 0, error: 'plain' }).error).toEqual({
      type: 'unknown_error',
      code: null,
      status: null,
      message: 'plain',
    });
  });

  it('sums usage and cost over every billed completion', () => {
    const record = buildCallRecord({
      request: { model: 'm', messages: [] },
      startedAt: 0,
      billed: [
        { usage: { prompt_tokens: 1_000, completion_tokens: 100 }, pricing },
        {
          usage: { prompt_tokens: 1_200, completion_tokens: 50 },
          pricing: { input: 3, output: 15, cached_input: 0.3 },
        },
      ],
    });
    expect(record.usage).toEqual({
      prompt_tokens: 2_200,
      completion_tokens: 150,
      reasoning_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
    });
    expect(record.cost_usd).toBe(0.00785);
  });

  it('keeps values JSON cannot hold from breaking a record', () => {
    const record = buildCallRecord({ request: { model: 'm', messages: [], input: { big: 10n } }, startedAt: 0 });
    expect(record.input).toBe('[unserializable]');
  });
});

describe('redaction', () => {
  const base = buildCallRecord({
    request: {
      model: 'm',
      input: { name: 'Ada' },
      messages: [
        { role: 'system', content: 'You are private' },
        { role: 'user', content: [{ type: 'text', text: 'my secret' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"ssn":"078-05-1120"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ssn found' },
      ],
    },
    startedAt: 0,
    redact: true,
    response: {
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: 'the secret',
            refusal: null,
            reasoning_content: 'secret thoughts',
            tool_calls: [{ id: 'c2', type: 'function', function: { name: 'send', arguments: '{"to":"ada"}' } }],
          },
        },
      ],
    },
  });

  it('replaces contents, arguments, input and answer text by "[redacted]", keeping the structure', () => {
    expect(base.input).toBe('[redacted]');
    expect(base.input_messages).toEqual([
      { role: 'system', content: '[redacted]' },
      { role: 'user', content: '[redacted]' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '[redacted]' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '[redacted]' },
    ]);
    expect(base.output).toEqual({
      content: '[redacted]',
      reasoning_content: '[redacted]',
      refusal: null,
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'send', arguments: '[redacted]' } }],
    });
    const text = JSON.stringify(base);
    for (const secret of ['private', 'my secret', '078-05-1120', 'ssn found', 'the secret', 'thoughts', 'Ada', '"to"'])
      expect(text).not.toContain(secret);
  });

  it('redactRecord leaves the original untouched', () => {
    const original: CallRecord = {
      ...base,
      input: { name: 'Ada' },
      input_messages: [{ role: 'user', content: 'hello' }],
    };
    const redacted = redactRecord(original);
    expect(redacted.input_messages).toEqual([{ role: 'user', content: '[redacted]' }]);
    expect(original.input_messages).toEqual([{ role: 'user', content: 'hello' }]);
  });
});
