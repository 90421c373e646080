import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';

/** Google's Gemini API (not Vertex), through `@google/genai`; conversions in this folder. */
export const googleProvider: ProviderDefinition = {
  id: 'google',
  envPrefix: 'GEMINI',
  defaultBaseURL: 'https://generativelanguage.googleapis.com',
  requiresApiKey: true,
  capabilities: { nativeOutput: nativeOutputWhere(true) },
  create: async (settings) => (await import('./adapter.ts')).createGoogleProvider(settings),
  convertRequest: async (call) => {
    const { config } = (await import('./convert-request.ts')).toGeminiRequest(call);
    // Token logprobs are not asked of Gemini (the conversion drops them with a warning).
    return {
      choices: config.candidateCount ?? 1,
      maxTokens: config.maxOutputTokens,
      stop: config.stopSequences ?? [],
      logprobs: false,
    };
  },
};
