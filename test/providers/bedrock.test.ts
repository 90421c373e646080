import { afterAll, describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError, ProviderError } from '../../src/index.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';

/**
 * AWS Bedrock through `@aws-sdk/client-bedrock-runtime` against a fake Converse/ConverseStream server (cleartext
 * HTTP/2, SigV4-signed requests, event-stream frames): `claude-sonnet-4-5` with only AWS credentials set.
 */
const bedrock = await startFakeBedrockServer();
afterAll(() => bedrock.close());

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMIexampleSECRETkey' };
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 5 },
  providers: { bedrock: { region: 'us-east-1', baseURL: bedrock.url, credentials } },
});
const hello = { model: 'claude-sonnet-4-5', messages: [{ role: 'user' as const, content: 'Hello' }] };
const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('Bedrock Converse', () => {
  it('answers claude-sonnet-4-5 with only AWS credentials: Anthropic skipped, the request SigV4-signed', async () => {
    bedrock.enqueue({ text: 'Hi there', usage: { inputTokens: 10, outputTokens: 3, cacheReadInputTokens: 4 } });
    const response = await gateway.createCompletion({
      ...hello,
      messages: [{ role: 'system', content: 'Be brief.' }, ...hello.messages],
    });
    expect(response.choices[0]!.message.content).toBe('Hi there');
    expect(response.switchyard).toMatchObject({
      provider: 'bedrock',
      provider_model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    });
    expect(response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`)).toEqual([
      'anthropic:missing_credentials',
      'bedrock:ok',
    ]);
    expect(response.usage).toMatchObject({
      prompt_tokens: 14,
      completion_tokens: 3,
      prompt_tokens_details: { cached_tokens: 4 },
    });
    const sent = bedrock.requests.at(-1)!;
    expect(sent.operation).toBe('converse');
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\//);
    expect(sent.body.system).toEqual([{ text: 'Be brief.' }]);
    expect(sent.body.messages).toEqual([{ role: 'user', content: [{ text: 'Hello' }] }]);
    // The secret never reaches the answer.
    expect(JSON.stringify(response)).not.toContain(credentials.secretAccessKey);
  });

  it('streams text, then the finish reason, then usage', async () => {
    bedrock.enqueue({ text: 'A streamed answer from Bedrock.' });
    const stream = await gateway.createCompletion({ ...hello, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('A streamed answer from Bedrock.');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });
    expect(bedrock.requests.at(-1)!.operation).toBe('converse-stream');
  });

  it('thinks with a budget and carries the signed thinking through a tool loop, streamed and not', async () => {
    bedrock.enqueue({
      reasoning: { text: 'The user wants weather.', signature: 'sig-abc' },
      toolUse: { id: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } },
    });
    const first = await gateway.createCompletion({
      ...hello,
      tools: [weather],
      reasoning: { budget: 2048 },
    });
    const sent = bedrock.requests.at(-1)!.body;
    expect(sent.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(sent.inferenceConfig.maxTokens).toBeGreaterThan(2048);
    expect(sent.toolConfig.tools[0].toolSpec).toMatchObject({
      name: 'get_weather',
      inputSchema: { json: weather.function.parameters },
    });
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls![0]).toMatchObject({
      id: 'tooluse_1',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', format: 'anthropic', text: 'The user wants weather.', signature: 'sig-abc' },
    ]);

    bedrock.enqueue({ text: 'Sunny in Paris.' });
    const stream = await gateway.createCompletion({
      ...hello,
      tools: [weather],
      reasoning: { budget: 2048 },
      messages: [
        ...hello.messages,
        message as never,
        { role: 'tool', tool_call_id: 'tooluse_1', content: '{"sky":"clear"}' },
      ],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Sunny in Paris.');
    const loop = bedrock.requests.at(-1)!.body.messages;
    expect(loop[1]).toEqual({
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: 'The user wants weather.', signature: 'sig-abc' } } },
        { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
      ],
    });
    expect(loop[2]).toEqual({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '{"sky":"clear"}' }] } }],
    });
  });

  it('streams a tool call from its block start and input deltas', async () => {
    bedrock.enqueue({ toolUse: { id: 'tooluse_2', name: 'get_weather', input: { city: 'Lyon' } } });
    const stream = await gateway.createCompletion({ ...hello, tools: [weather], stream: true });
    let args = '';
    let name = '';
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? '';
      args += call?.function?.arguments ?? '';
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Lyon' });
  });

  it('maps exceptions: throttling retried, validation not, a stream exception after content interrupts', async () => {
    bedrock.enqueue(
      { error: { status: 429, type: 'ThrottlingException', message: 'Too many requests' } },
      { text: 'ok' },
    );
    const retried = await gateway.createCompletion(hello);
    expect(retried.switchyard.attempts.map((attempt) => attempt.outcome)).toContain('ThrottlingException');
    expect(retried.choices[0]!.message.content).toBe('ok');

    bedrock.enqueue({ error: { status: 400, type: 'ValidationException', message: 'messages: bad' } });
    const refused = await gateway.createCompletion(hello).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused).toMatchObject({ status: 400, code: 'ValidationException', provider: 'bedrock' });

    bedrock.enqueue({ text: 'Partial answer', streamException: 'modelStreamErrorException' });
    const stream = await gateway.createCompletion({ ...hello, stream: true });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // read to the end
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
  });

  it('bedrock/<id> pins Bedrock and reaches an uncatalogued model; images must be bytes', async () => {
    bedrock.enqueue({ text: 'From Nova' });
    const nova = await gateway.createCompletion({ model: 'bedrock/amazon.nova-pro-v1:0', messages: hello.messages });
    expect(nova.switchyard).toMatchObject({ provider: 'bedrock', model_known: false });
    expect(bedrock.requests.at(-1)!.modelId).toBe('amazon.nova-pro-v1:0');
    const url = await gateway
      .createCompletion({
        model: 'bedrock/amazon.nova-pro-v1:0',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      })
      .catch((error: unknown) => error);
    expect(url).toBeInstanceOf(InvalidRequestError);
  });

  it('without AWS credentials or region, Bedrock is skipped as missing credentials', async () => {
    const bare = createGateway({ env: {} });
    const error = await bare.createCompletion(hello).catch((thrown: unknown) => thrown);
    expect(
      (error as { attempts: Array<{ provider: string; outcome: string; message: string }> }).attempts,
    ).toContainEqual(expect.objectContaining({ provider: 'bedrock', outcome: 'missing_credentials' }));
  });
});
