import { SUPPORTS_EVERYTHING } from '../../catalog/model-profile.ts';
import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';

/** Anthropic's Messages API, through `@anthropic-ai/sdk`; conversions in this folder. */
export const anthropicProvider: ProviderDefinition = {
  id: 'anthropic',
  envPrefix: 'ANTHROPIC',
  defaultBaseURL: 'https://api.anthropic.com',
  requiresApiKey: true,
  capabilities: { nativeOutput: nativeOutputWhere(true), continuesPrefill: true },
  // An unlisted Claude: a thinking budget (every Claude that thinks takes one); schemas in the prompt, since older
  // models refuse output_config.format and the refusal names no parameter to fall back on.
  uncatalogued: {
    context_window: 200_000,
    max_output_tokens: 32_000,
    supports: { ...SUPPORTS_EVERYTHING, structured_outputs: false },
    reasoning: { control: 'budget', can_disable: true, min_budget: 1_024 },
  },
  create: async (settings) => (await import('./adapter.ts')).createAnthropicProvider(settings),
  convertRequest: async (call, streaming) =>
    (await import('./convert-request.ts')).shapeOfAnthropicRequest(call, streaming),
};
