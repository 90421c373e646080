import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompletionChunk, createGateway } from '../../src/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

/**
 * A fake Azure OpenAI resource: deployment in the path, api-version in the query, api-key header, content filter
 * fields.
 */
const seen: Array<{ url: string; headers: Record<string, unknown>; body: Record<string, any> }> = [];
let endpoint = '';
const server = createServer(async (request, response) => {
  let raw = '';
  for await (const chunk of request) raw += chunk;
  const body = JSON.parse(raw);
  seen.push({ url: request.url!, headers: request.headers, body });
  if (body.messages[0].content === 'trigger the filter') {
    response.writeHead(400, { 'content-type': 'application/json' });
    return response.end(
      JSON.stringify({
        error: {
          message: 'The response was filtered due to the prompt triggering content management policy.',
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: { code: 'ResponsibleAIPolicyViolation' },
        },
      }),
    );
  }
  const base = { id: 'chatcmpl-az', created: 1_760_000_000, model: 'gpt-4o-2024-11-20', system_fingerprint: 'fp_az' };
  if (body.stream) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
    send({
      id: '',
      object: '',
      created: 0,
      model: '',
      choices: [],
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
    });
    send({
      ...base,
      object: 'chat.completion.chunk',
      choices: [
        { index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null, content_filter_results: {} },
      ],
    });
    send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    send({
      ...base,
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    response.end('data: [DONE]\n\n');
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      ...base,
      object: 'chat.completion',
      prompt_filter_results: [],
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello from Azure' },
          finish_reason: 'stop',
          content_filter_results: {},
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    }),
  );
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const hello = [{ role: 'user' as const, content: 'hi' }];

describe('Azure OpenAI adapter', () => {
  it('calls the deployment URL with api-version and the api-key header, from AZURE_* variables', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      env: { AZURE_API_KEY: 'az-key', AZURE_BASE_URL: endpoint, AZURE_API_VERSION: '2025-04-01-preview' },
    });
    const response = await gateway.createCompletion({ model: 'azure/gpt-4o-latest', messages: hello, max_tokens: 20 });
    const request = seen.at(-1)!;
    expect(request.url).toBe('/openai/deployments/gpt-4o-2024-11-20/chat/completions?api-version=2025-04-01-preview');
    expect(request.headers['api-key']).toBe('az-key');
    expect(request.body).toMatchObject({ max_completion_tokens: 20 });
    expect(response.choices[0]!.message.content).toBe('Hello from Azure');
    expect(response.switchyard.provider).toBe('azure');
  });

  it('maps the model to a custom deployment name and skips the prompt-filter chunk of a stream', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      env: {},
      providers: { azure: { apiKey: 'az-key', baseURL: endpoint, deployments: { 'gpt-4o-2024-11-20': 'prod-4o' } } },
    });
    const chunks: CompletionChunk[] = [];
    for await (const chunk of await gateway.createCompletion({
      model: 'azure/gpt-4o-latest',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    }))
      chunks.push(chunk);
    expect(seen.at(-1)!.url).toBe('/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21');
    expect(chunks[0]!.choices[0]!.delta.content).toBe('Hi');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 4 } });
  });

  it('reports a filtered prompt as a non-retryable 400 with code content_filter', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      env: {},
      providers: { azure: { apiKey: 'az-key', baseURL: endpoint } },
    });
    const before = seen.length;
    const error = await gateway
      .createCompletion({ model: 'azure/gpt-4o-latest', messages: [{ role: 'user', content: 'trigger the filter' }] })
      .catch((caught) => caught);
    expect(error).toMatchObject({
      name: 'ProviderError',
      status: 400,
      code: 'content_filter',
      provider: 'azure',
      retryable: false,
    });
    expect(seen.length - before).toBe(1);
  });

  it('needs AZURE_BASE_URL as well as a key', async () => {
    const gateway = createGateway({ catalog: testCatalog, env: { AZURE_API_KEY: 'az-key' } });
    await expect(gateway.createCompletion({ model: 'azure/gpt-4o-latest', messages: hello })).rejects.toThrow(
      /AZURE_BASE_URL/,
    );
  });
});
