import { describe, expect, it } from 'vitest';
import type { CatalogData, Provider, ProviderDefinition } from '../../src/entries/providers.ts';
import { Catalog, createGateway } from '../../src/index.ts';

/**
 * A definition whose `create` throws (a service account key that does not parse, an SDK refusing its options): the
 * attempt is `missing_credentials`, its message without the key, and the chain goes on to the next provider. The
 * failure is not kept: the next call tries to create the adapter again.
 */
const SECRET = 'flaky-secret-key-0123456789';
let creations = 0;
let fixed = false;

const answering = (name: string): Provider => ({
  name,
  complete: async (call) => ({
    id: `${name}-1`,
    object: 'chat.completion',
    created: 1,
    model: call.body.model,
    choices: [
      { index: 0, message: { role: 'assistant', content: name, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
  stream: async () => {
    throw new Error('not streamed in this test');
  },
});

const definition = (id: string, create: ProviderDefinition['create']): ProviderDefinition => ({
  id,
  envPrefix: id.toUpperCase(),
  defaultBaseURL: `https://${id}.example`,
  requiresApiKey: true,
  capabilities: { nativeOutput: () => false },
  create,
});

const flaky = definition('flaky', async (settings) => {
  creations += 1;
  if (!fixed) throw new TypeError(`the client refused its options (apiKey ${settings.apiKey})`);
  return answering('flaky');
});
const steady = definition('steady', async () => answering('steady'));

const supports = {
  reasoning: false,
  structured_outputs: false,
  json_mode: false,
  tools: false,
  parallel_tool_calls: false,
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
      id: 'shared-1',
      name: 'Shared',
      maker: 'acme',
      release_date: '2026-11-01',
      context_window: 32_000,
      max_output_tokens: 4_096,
      supports,
      providers: [
        { provider: 'flaky', model: 'shared-1', pricing: { input: 1, output: 1, cached_input: 1 } },
        { provider: 'steady', model: 'shared-1', pricing: { input: 1, output: 1, cached_input: 1 } },
      ],
    },
  ],
  aliases: {},
  synonyms: {},
} satisfies CatalogData);

describe('a provider whose adapter cannot be created', () => {
  const gateway = createGateway({
    catalog,
    env: {},
    providers: { flaky: { definition: flaky, apiKey: SECRET }, steady: { definition: steady, apiKey: 'steady-key' } },
  });
  const hello = [{ role: 'user' as const, content: 'hi' }];

  it('is a missing_credentials attempt, redacted, and the next provider answers', async () => {
    const response = await gateway.createCompletion({ model: 'shared-1', messages: hello });
    expect(response.choices[0]!.message.content).toBe('steady');
    const [failed] = response.switchyard.attempts;
    expect(failed).toMatchObject({ provider: 'flaky', outcome: 'missing_credentials' });
    expect(failed!.message).toContain('the client refused its options');
    expect(JSON.stringify(response.switchyard)).not.toContain(SECRET);
  });

  it('is tried again on the next call, not remembered', async () => {
    fixed = true;
    const before = creations;
    const response = await gateway.createCompletion({ model: 'flaky/shared-1', messages: hello });
    expect(response.choices[0]!.message.content).toBe('flaky');
    expect(creations).toBe(before + 1);
  });
});
