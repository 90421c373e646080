import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CompletionRequest, createGateway } from '../../src/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';

/**
 * Claude's sampling parameters as each model takes them, on the bundled catalog, through the fakes. The SDK's API
 * version (2026-10-21) refuses temperature and top_p; Claude 4.5 and 4.6 take them on the version they came out
 * with (2023-06-01; Vertex's vertex-2023-10-16), where a temperature runs from 0 to 1 and only one of the two may be
 * sent. Later models take neither on any version.
 */
const anthropic = await startFakeAnthropicServer();
const bedrock = await startFakeBedrockServer();
afterAll(() => Promise.all([anthropic.close(), bedrock.close()]));
afterEach(() => {
  anthropic.requests.length = 0;
  bedrock.requests.length = 0;
});

const gateway = createGateway({
  env: {},
  retry: { maxRetries: 0 },
  providers: {
    anthropic: { apiKey: 'sk-ant-sampling', baseURL: anthropic.url },
    vertex: { apiKey: 'ya29.sampling', baseURL: anthropic.url, project: 'acme', region: 'us-east5' },
    bedrock: {
      region: 'us-east-1',
      baseURL: bedrock.url,
      credentials: { accessKeyId: 'AKIDSAMPLING', secretAccessKey: 'sampling-secret' },
    },
  },
});
const hello = [{ role: 'user' as const, content: 'Say hello' }];
const ask = (request: Omit<CompletionRequest, 'messages'>) =>
  gateway.createCompletion({ messages: hello, ...request } as CompletionRequest);
const sampling = (body: Record<string, unknown>) => ({ temperature: body.temperature, top_p: body.top_p });

describe('Claude sampling on Anthropic', () => {
  it('sends a temperature to a model that takes it, on the API version that allows it', async () => {
    const response = await ask({ model: 'claude-haiku-4-5', temperature: 0.3 });
    const request = anthropic.requests[0]!;
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(sampling(request.body)).toEqual({ temperature: 0.3, top_p: undefined });
    expect(response.switchyard.warnings).toEqual([]);
  });

  it('sends top_p alone, and a level-controlled model that takes sampling gets it too', async () => {
    await ask({ model: 'claude-opus-4-6', top_p: 0.8 });
    expect(anthropic.requests[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sampling(anthropic.requests[0]!.body)).toEqual({ temperature: undefined, top_p: 0.8 });
  });

  it("lowers a temperature above 1 to Claude's 1 and drops top_p beside it, each with a warning", async () => {
    const response = await ask({ model: 'claude-haiku-4-5', temperature: 1.5, top_p: 0.9, stream: false });
    expect(sampling(anthropic.requests[0]!.body)).toEqual({ temperature: 1, top_p: undefined });
    expect(response.switchyard.warnings).toEqual([
      {
        code: 'converted_parameter',
        param: 'temperature',
        message: 'Claude takes a temperature from 0 to 1; 1.5 was sent as 1.',
      },
      {
        code: 'unsupported_parameter',
        param: 'top_p',
        message: 'claude-haiku-4-5-20251001 takes temperature or top_p, not both; top_p was not sent.',
      },
    ]);
  });

  it("streams on the model's version too, and without sampling stays on the SDK's", async () => {
    const stream = await gateway.createCompletion({
      model: 'claude-sonnet-4-6',
      messages: hello,
      temperature: 0,
      stream: true,
    });
    for await (const _chunk of stream);
    await ask({ model: 'claude-sonnet-4-6' });
    expect(anthropic.requests.map((request) => request.headers['anthropic-version'])).toEqual([
      '2023-06-01',
      '2026-10-21',
    ]);
    expect(anthropic.requests[0]!.body.temperature).toBe(0);
  });

  it('drops sampling for a model that takes none, with a warning, on the SDK version', async () => {
    const response = await ask({ model: 'claude-opus-4-7', temperature: 0.2, top_p: 0.5 });
    const request = anthropic.requests[0]!;
    expect(request.headers['anthropic-version']).toBe('2026-10-21');
    expect(sampling(request.body)).toEqual({ temperature: undefined, top_p: undefined });
    expect(response.switchyard.warnings.map((warning) => `${warning.code}:${warning.param}`)).toEqual([
      'unsupported_parameter:temperature',
      'unsupported_parameter:top_p',
    ]);
  });

  it('drops sampling for a Claude the catalog does not list: no version is known on which it takes it', async () => {
    const response = await ask({ model: 'anthropic/claude-3-7-sonnet-20250219', temperature: 0.2 });
    expect(anthropic.requests[0]!.headers['anthropic-version']).toBe('2026-10-21');
    expect(anthropic.requests[0]!.body.temperature).toBeUndefined();
    // Beside price_unknown: nobody knows the price of a model the catalog does not list.
    expect(response.switchyard.warnings.filter((warning) => warning.code !== 'price_unknown')).toEqual([
      {
        code: 'unsupported_parameter',
        param: 'temperature',
        message:
          "Anthropic's API version 2026-10-21 refuses sampling parameters, and the catalog names no earlier version " +
          'for claude-3-7-sonnet-20250219 (sampling_api_version); "temperature" was not sent.',
      },
    ]);
  });
});

describe('Claude sampling on Vertex AI and Bedrock', () => {
  it("sends the temperature on Vertex with the model's anthropic_version", async () => {
    const response = await ask({ model: 'vertex/claude-haiku-4-5', temperature: 0.4 });
    const request = anthropic.requests[0]!;
    expect(request.path).toMatch(/claude-haiku-4-5@20251001:rawPredict$/);
    expect(request.headers['anthropic-version']).toBe('vertex-2023-10-16');
    expect(request.body.temperature).toBe(0.4);
    expect(response.switchyard.warnings).toEqual([]);
  });

  it('holds Claude on Bedrock to the same rules: temperature up to 1, not with top_p', async () => {
    const response = await ask({ model: 'bedrock/claude-haiku-4-5', temperature: 2, top_p: 0.9 });
    expect(bedrock.requests[0]!.body.inferenceConfig).toEqual({ temperature: 1 });
    expect(response.switchyard.warnings.map((warning) => `${warning.code}:${warning.param}`)).toEqual([
      'converted_parameter:temperature',
      'unsupported_parameter:top_p',
    ]);
    await ask({ model: 'bedrock/claude-haiku-4-5', top_p: 0.7 });
    expect(bedrock.requests[1]!.body.inferenceConfig).toEqual({ topP: 0.7 });
  });
});
