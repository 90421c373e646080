import { describe, expect, it } from 'vitest';
import {
  type CatalogData,
  nativeOutputWhere,
  type Provider,
  type ProviderCall,
  type ProviderDefinition,
} from '../src/entries/providers.ts';
import { Catalog, type CompletionChunk, createGateway, ProviderError } from '../src/index.ts';

/**
 * A provider written outside the package, as a user would: a definition built from the exported types only, plugged
 * in with `createGateway({ providers })`. It gets the same routing, retries, structured output and records as the
 * providers Switchyard ships.
 */
const calls: ProviderCall[] = [];
let failuresLeft = 0;

class EchoProvider implements Provider {
  readonly name = 'acme';
  readonly apiKey: string;
  constructor(apiKey: string) {
    this.apiKey = apiKey;
  }

  async complete(call: ProviderCall) {
    calls.push(call);
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      throw new ProviderError('acme answered 503: busy', {
        provider: 'acme',
        model: call.body.model,
        status: 503,
        retryable: true,
      });
    }
    const wantsJson = call.body.response_format?.type === 'json_object';
    const content = wantsJson ? '{"city":"Paris"}' : `echo: ${String(call.body.messages.at(-1)?.content)}`;
    return {
      id: 'acme-1',
      object: 'chat.completion' as const,
      created: 1,
      model: call.body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant' as const, content, refusal: null },
          finish_reason: 'stop' as const,
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const { choices, ...rest } = await this.complete(call);
    const base = { ...rest, object: 'chat.completion.chunk' as const };
    return (async function* () {
      yield {
        ...base,
        choices: [
          {
            index: 0,
            delta: { role: 'assistant' as const, content: choices[0]!.message.content },
            finish_reason: null,
            logprobs: null,
          },
        ],
      };
      yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' as const, logprobs: null }] };
    })();
  }
}

const acme: ProviderDefinition = {
  id: 'acme',
  envPrefix: 'ACME',
  defaultBaseURL: 'https://api.acme.example',
  requiresApiKey: true,
  // ACME cannot constrain output to a schema: Switchyard puts it in the prompt and validates the answer.
  capabilities: { nativeOutput: nativeOutputWhere(false) },
  create: async (settings) => new EchoProvider(settings.apiKey),
};

const supports = {
  reasoning: false,
  structured_outputs: false,
  json_mode: true,
  tools: true,
  parallel_tool_calls: true,
  images: false,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: false,
};
const catalog = new Catalog({
  updated: '2026-11-23',
  models: [
    {
      id: 'acme-large-1',
      name: 'ACME Large',
      maker: 'acme',
      release_date: '2026-11-01',
      context_window: 32_000,
      max_output_tokens: 4_096,
      supports,
      providers: [{ provider: 'acme', model: 'large-1', pricing: { input: 1, output: 2, cached_input: 1 } }],
    },
  ],
  aliases: {},
  synonyms: {},
} satisfies CatalogData);

describe('a provider of your own', () => {
  const gateway = createGateway({
    catalog,
    env: {},
    providers: { acme: { definition: acme, apiKey: 'acme-key' } },
    retry: { initialDelayMs: 1 },
  });

  it('is called with the OpenAI-shaped body, retried like any provider, and recorded', async () => {
    failuresLeft = 1;
    const response = await gateway.createCompletion({
      model: 'acme-large-1',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.2,
    });
    expect(response.choices[0]!.message.content).toBe('echo: hi');
    expect(response.switchyard).toMatchObject({ provider: 'acme', provider_model: 'large-1', cost_usd: 0.00002 });
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['server_error', 'ok']);
    expect(calls.at(-1)!.body).toMatchObject({ model: 'large-1', temperature: 0.2 });
    await gateway.flush();
    expect((await gateway.calls.list({ limit: 1 })).data[0]).toMatchObject({
      id: response.switchyard.call_id,
      provider: 'acme',
      status: 'ok',
    });
  });

  it('gets structured output through the prompt, as its capabilities say', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const response = await gateway.createCompletion({
      model: 'acme/acme-large-1',
      messages: [{ role: 'user', content: 'Where?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema } },
    });
    expect(response.choices[0]!.message.parsed).toEqual({ city: 'Paris' });
    const sent = calls.at(-1)!.body;
    expect(sent.response_format).toEqual({ type: 'json_object' });
    expect(sent.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining(JSON.stringify(schema)),
    });
  });

  it('streams', async () => {
    const stream = await gateway.createCompletion({
      model: 'acme-large-1',
      messages: [{ role: 'user', content: 'stream' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('echo: stream');
  });

  it('needs its key like any provider', async () => {
    const keyless = createGateway({ catalog, env: {}, providers: { acme: { definition: acme } } });
    await expect(
      keyless.createCompletion({ model: 'acme-large-1', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 503,
      code: 'provider_not_configured',
      message: expect.stringContaining('ACME_API_KEY'),
    });
  });
});
