import { openAIFamily, type OpenAIFamilyQuirks } from './openai-compatible.ts';
import type { Provider, ResolvedProviderSettings } from './provider.ts';

/** How to reach one provider: where its settings come from, and how to build its adapter (loaded on first use). */
export interface ProviderDefinition {
  name: string;
  /** `<envPrefix>_API_KEY` and `<envPrefix>_BASE_URL`. */
  envPrefix: string;
  defaultBaseURL: string;
  requiresApiKey: boolean;
  load(settings: ResolvedProviderSettings): Promise<Provider>;
}

function openAIFamilyDefinition(quirks: OpenAIFamilyQuirks): ProviderDefinition {
  return {
    name: quirks.name,
    envPrefix: quirks.envPrefix,
    defaultBaseURL: quirks.defaultBaseURL,
    requiresApiKey: quirks.requiresApiKey,
    load: async (settings) => (await import('./openai.ts')).createOpenAIProvider(settings, quirks),
  };
}

/** Every provider Switchyard can call. Their names are reserved in the `model` parameter (`<provider>/<model>`). */
export const providerDefinitions: ReadonlyMap<string, ProviderDefinition> = new Map(
  Object.values(openAIFamily).map((quirks) => [quirks.name, openAIFamilyDefinition(quirks)]),
);

/** Names reserved as `<provider>/` prefixes, including providers the catalog lists but this version cannot call yet. */
export const reservedProviderNames: ReadonlySet<string> = new Set([
  ...providerDefinitions.keys(),
  'anthropic', 'google', 'azure', 'bedrock', 'vertex', 'mock',
]);
