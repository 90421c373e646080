import type { ModelEntry } from '../catalog/catalog-schema.ts';
import { openAIFamily, type OpenAIFamilyQuirks } from './openai/family.ts';
import type { Provider, ResolvedProviderSettings } from './provider.ts';

/** How to reach one provider: where its settings come from, and how to build its adapter (loaded on first use). */
export interface ProviderDefinition {
  name: string;
  /** `<envPrefix>_API_KEY` and `<envPrefix>_BASE_URL`. */
  envPrefix: string;
  defaultBaseURL: string;
  requiresApiKey: boolean;
  /** Whether the provider constrains output to a JSON Schema itself (the model must support it too, per the catalog). */
  nativeStructuredOutputs: boolean;
  load(settings: ResolvedProviderSettings): Promise<Provider>;
}

function openAIFamilyDefinition(quirks: OpenAIFamilyQuirks): ProviderDefinition {
  return {
    name: quirks.name,
    envPrefix: quirks.envPrefix,
    defaultBaseURL: quirks.defaultBaseURL,
    requiresApiKey: quirks.requiresApiKey,
    nativeStructuredOutputs: quirks.nativeStructuredOutputs,
    load: async (settings) =>
      quirks.name === 'azure'
        ? (await import('./azure/definition.ts')).createAzureProvider(settings, quirks)
        : (await import('./openai/adapter.ts')).createOpenAIProvider(settings, quirks),
  };
}

const anthropic: ProviderDefinition = {
  name: 'anthropic',
  envPrefix: 'ANTHROPIC',
  defaultBaseURL: 'https://api.anthropic.com',
  requiresApiKey: true,
  nativeStructuredOutputs: true,
  load: async (settings) => (await import('./anthropic/adapter.ts')).createAnthropicProvider(settings),
};

const google: ProviderDefinition = {
  name: 'google',
  envPrefix: 'GEMINI',
  defaultBaseURL: 'https://generativelanguage.googleapis.com',
  requiresApiKey: true,
  nativeStructuredOutputs: true,
  load: async (settings) => (await import('./google/adapter.ts')).createGoogleProvider(settings),
};

/** Every provider Switchyard can call. Their names are reserved in the `model` parameter (`<provider>/<model>`). */
export const providerDefinitions: ReadonlyMap<string, ProviderDefinition> = new Map([
  ...Object.values(openAIFamily).map((quirks) => [quirks.name, openAIFamilyDefinition(quirks)] as const),
  ['anthropic', anthropic],
  ['google', google],
]);

/** Names reserved as `<provider>/` prefixes, including providers the catalog lists but this version cannot call yet. */
export const reservedProviderNames: ReadonlySet<string> = new Set([
  ...providerDefinitions.keys(),
  'anthropic', 'google', 'azure', 'bedrock', 'vertex', 'mock',
]);

/**
 * Whether an output requirement is sent to this provider natively (the provider constrains the output itself)
 * rather than in the prompt: the model must have it (per the catalog) and the provider must enforce it.
 */
export function constrainsOutputNatively(provider: string, model: ModelEntry, kind: 'json_schema' | 'json_object'): boolean {
  // The simulator honours schemas for every model it stands in for.
  if (provider === 'mock') return true;
  const modelHasIt = kind === 'json_schema' ? model.supports.structured_outputs : model.supports.json_mode;
  return modelHasIt && (providerDefinitions.get(provider)?.nativeStructuredOutputs ?? false);
}
