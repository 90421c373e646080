import { SUPPORTS_EVERYTHING } from '../../catalog/model-profile.ts';
import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';

/** Google's Gemini API (not Vertex), through `@google/genai`; conversions in this folder. */
export const googleProvider: ProviderDefinition = {
  id: 'google',
  envPrefix: 'GEMINI',
  defaultBaseURL: 'https://generativelanguage.googleapis.com',
  requiresApiKey: true,
  capabilities: {
    nativeOutput: nativeOutputWhere(true),
    embeddings: true,
    media: {
      apis: ['generateImage', 'editImage', 'createSpeech'],
      convertImage: async (call) => (await import('./image-parameters.ts')).imageParametersFor(call),
      convertSpeech: async (call) => (await import('./speech.ts')).geminiSpeechRequest(call),
    },
  },
  otelName: 'gcp.gemini',
  // An unlisted Gemini: a thinking budget (Gemini 3 still takes one beside its levels); responseJsonSchema native.
  uncatalogued: {
    context_window: 1_048_576,
    max_output_tokens: 65_536,
    supports: SUPPORTS_EVERYTHING,
    reasoning: { control: 'budget', can_disable: true },
  },
  create: async (settings) => (await import('./adapter.ts')).createGoogleProvider(settings),
  convertRequest: async (call) => {
    const { config } = (await import('./convert-request.ts')).toGeminiRequest(call);
    // Token logprobs are not asked of Gemini (the conversion drops them with a warning). Thoughts come with an
    // opaque signature, sent back on the next turn.
    return {
      choices: config.candidateCount ?? 1,
      maxTokens: config.maxOutputTokens,
      stop: config.stopSequences ?? [],
      logprobs: false,
      reasoning: { kind: 'signature', format: 'google' },
    };
  },
};
