import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';

/** Anthropic's Messages API, through `@anthropic-ai/sdk`; conversions in this folder. */
export const anthropicProvider: ProviderDefinition = {
  id: 'anthropic',
  envPrefix: 'ANTHROPIC',
  defaultBaseURL: 'https://api.anthropic.com',
  requiresApiKey: true,
  capabilities: { nativeOutput: nativeOutputWhere(true) },
  create: async (settings) => (await import('./adapter.ts')).createAnthropicProvider(settings),
  convertRequest: async (call, streaming) => {
    const params = (await import('./convert-request.ts')).toAnthropicRequest(call, streaming);
    // One answer per request; no token logprobs.
    return { choices: 1, maxTokens: params.max_tokens, stop: params.stop_sequences ?? [], logprobs: false };
  },
};
