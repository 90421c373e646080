import { afterAll, describe, expect, it } from 'vitest';
import { MemorySink } from '../src/entries/stores.ts';
import { createGateway } from '../src/index.ts';
import { startFakeAnthropicServer } from './fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from './fake-servers/gemini-server.ts';
import { collect } from './helpers/chunks.ts';
import { useFakeOpenAIServer } from './helpers/openai-env.ts';

/**
 * Models the catalog does not list, called as `<provider>/<any id>`: each reaches its provider through the real SDK
 * with the caller's parameters as written, the response says the model is not known, and nothing is priced at $0.
 */
const openai = await useFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
const gemini = await startFakeGeminiServer();
afterAll(() => Promise.all([anthropic.close(), gemini.close()]));

const sink = new MemorySink();
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 0 },
  records: { sinks: [sink], flushIntervalMs: 10 },
  providers: {
    openai: { apiKey: 'sk-open-world', baseURL: openai.url },
    ollama: { baseURL: openai.url },
    openrouter: { apiKey: 'sk-or-open-world', baseURL: openai.url },
    groq: { apiKey: 'gsk-open-world', baseURL: openai.url },
    anthropic: { apiKey: 'sk-ant-open-world', baseURL: anthropic.url },
    google: { apiKey: 'gemini-open-world', baseURL: gemini.url },
  },
});
const hello = [{ role: 'user' as const, content: 'hi' }];
const schema = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'city',
    schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};

/** The OpenAI-shaped parameters a caller may send; every one must reach an OpenAI-family provider as written. */
const parameters = {
  temperature: 0.3,
  top_p: 0.9,
  stop: ['END'],
  seed: 7,
  presence_penalty: 0.1,
  frequency_penalty: 0.2,
  max_completion_tokens: 777,
  reasoning_effort: 'high' as const,
  tools: [
    {
      type: 'function' as const,
      function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
    },
  ],
  tool_choice: 'auto' as const,
  parallel_tool_calls: false,
};

describe('<provider>/<any id> on the OpenAI family', () => {
  it.each([
    ['ollama/llama3.2:3b', 'llama3.2:3b'],
    ['openrouter/some-org/brand-new-model:free', 'some-org/brand-new-model:free'],
    ['openai/gpt-7-preview-2027-01-01', 'gpt-7-preview-2027-01-01'],
    ['groq/moonshotai/kimi-k3-instruct', 'moonshotai/kimi-k3-instruct'],
  ])('%s reaches the provider as %s with every parameter intact', async (model, wire) => {
    const response = await gateway.createCompletion({ model, messages: hello, ...parameters });
    const sent = openai.requests.at(-1)!.body;
    expect(sent.model).toBe(wire);
    for (const [param, value] of Object.entries(parameters)) {
      // Providers that call the limit max_tokens get it under that name.
      const name = param === 'max_completion_tokens' && sent.max_tokens !== undefined ? 'max_tokens' : param;
      expect(sent[name], `${model}: ${param}`).toEqual(value);
    }
    expect(response.model).toBe(wire);
    expect(response.switchyard).toMatchObject({ model: wire, provider_model: wire, model_known: false });
    expect(response.switchyard.cost_usd).toBeNull();
    expect(response.switchyard.cost).toBeNull();
    expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual(['price_unknown']);
  });

  it('a catalogued model reports model_known: true and a price', async () => {
    const response = await gateway.createCompletion({ model: 'openai/gpt-5.4-2026-03-05', messages: hello });
    expect(response.switchyard).toMatchObject({ model_known: true, warnings: [] });
    expect(response.switchyard.cost_usd).toBeGreaterThan(0);
  });

  it('a provider model name the catalog lists resolves to its catalog model', async () => {
    const response = await gateway.createCompletion({ model: 'openrouter/openai/gpt-4o-2024-11-20', messages: hello });
    expect(openai.requests.at(-1)!.body.model).toBe('openai/gpt-4o-2024-11-20');
    expect(response.switchyard).toMatchObject({ model: 'gpt-4o-2024-11-20', model_known: true });
    expect(response.switchyard.cost_usd).toBeGreaterThan(0);
  });

  it('sends a schema natively where the provider enforces schemas, streams, and records the call flagged', async () => {
    openai.enqueue({ content: '{"name":"Lille"}' });
    const stream = await gateway.createCompletion({
      model: 'ollama/qwen3:8b',
      messages: hello,
      response_format: schema,
      stream: true,
      stream_options: { include_usage: true },
      metadata: { agent_id: 'open-world' },
    });
    const chunks = await collect(stream);
    expect(openai.requests.at(-1)!.body.response_format).toMatchObject({ type: 'json_schema' });
    expect(chunks.at(-1)!.usage).toBeDefined();
    await gateway.flush();
    const record = sink.records().find((candidate) => candidate.agent_id === 'open-world')!;
    expect(record).toMatchObject({ model: 'qwen3:8b', provider: 'ollama', cost_usd: null, cost: null });
    expect(record.warnings.map((warning) => warning.code)).toContain('price_unknown');
  });

  it('a fallback may be an uncatalogued id too', async () => {
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    const response = await gateway.createCompletion({
      model: 'openai/gpt-7-preview',
      messages: hello,
      fallbacks: ['ollama/llama3.2:3b'],
    });
    expect(response.switchyard).toMatchObject({ provider: 'ollama', model: 'llama3.2:3b', model_known: false });
    expect(response.switchyard.attempts.map((attempt) => attempt.provider)).toEqual(['openai', 'ollama']);
  });
});

describe('<provider>/<any id> on Anthropic and Gemini', () => {
  it('an unlisted Claude: the caller max_tokens as is, a thinking budget, the schema in the prompt', async () => {
    anthropic.enqueue({ content: [{ type: 'text', text: '{"name":"Lyon"}' }] });
    const response = await gateway.createCompletion({
      model: 'anthropic/claude-fable-9-20280101',
      messages: hello,
      max_tokens: 100_000,
      reasoning: { budget: 5_000 },
      response_format: schema,
    });
    const sent = anthropic.requests.at(-1)!.body;
    expect(sent.model).toBe('claude-fable-9-20280101');
    expect(sent.max_tokens).toBe(100_000);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 5_000 });
    expect(sent.output_config?.format).toBeUndefined();
    const system = (sent.system as Array<{ text: string }>).map((block) => block.text).join('\n');
    expect(system).toContain('{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}');
    expect(response.choices[0]!.message.content).toBe('{"name":"Lyon"}');
    expect(response.switchyard).toMatchObject({ model_known: false, cost_usd: null });
  });

  it('an unlisted Gemini gets a thinking budget and responseJsonSchema', async () => {
    gemini.enqueue({ text: '{"name":"Nantes"}' });
    const response = await gateway.createCompletion({
      model: 'google/gemini-9-ultra',
      messages: hello,
      reasoning_effort: 'low',
      response_format: schema,
      temperature: 0.2,
    });
    const sent = gemini.requests.at(-1)!;
    expect(sent.model).toBe('gemini-9-ultra');
    expect(sent.body.generationConfig.thinkingConfig.thinkingBudget).toBeGreaterThan(0);
    expect(sent.body.generationConfig.responseJsonSchema).toMatchObject({ type: 'object' });
    expect(sent.body.generationConfig.temperature).toBe(0.2);
    expect(response.switchyard).toMatchObject({ model_known: false, cost_usd: null });
  });
});

describe('what stays refused', () => {
  it('a reserved provider name without an adapter', async () => {
    await expect(gateway.createCompletion({ model: 'mock/anything', messages: hello })).rejects.toMatchObject({
      status: 400,
      code: 'provider_not_available',
    });
  });

  it('a fallback that names a deployment', async () => {
    await expect(
      gateway.createCompletion({ model: 'ollama/x', messages: hello, fallbacks: ['switchyard/deployment/bot'] }),
    ).rejects.toMatchObject({ status: 400, param: 'fallbacks' });
  });
});
