import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';

/** Google's Gemini API (not Vertex), through `@google/genai`; conversions in this folder. */
export const googleProvider: ProviderDefinition = {
  id: 'google',
  envPrefix: 'GEMINI',
  defaultBaseURL: 'https://generativelanguage.googleapis.com',
  requiresApiKey: true,
  capabilities: { nativeOutput: nativeOutputWhere(true) },
  create: async (settings) => (await import('./adapter.ts')).createGoogleProvider(settings),
  convertRequest: async (call) => (await import('./convert-request.ts')).toGeminiRequest(call),
};
