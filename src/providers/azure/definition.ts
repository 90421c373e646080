import { importOptional } from '../../internal/optional-package.ts';
import { keyAndEndpoint } from '../credentials.ts';
import { OPENAI_SEARCH_MODELS, type OpenAIFamilyQuirks, openAIFamilyProvider } from '../openai/family.ts';
import type { ProviderDefinition } from '../provider.ts';

/** Azure's own settings, beside the shared ones. */
export interface AzureSettings {
  /** The api-version query parameter (default from `AZURE_API_VERSION`, else 2024-10-21). */
  apiVersion?: string | undefined;
  /** The deployment name per model name, where a deployment is not named after its model. */
  deployments?: Record<string, string> | undefined;
}

/** Azure OpenAI speaks the OpenAI wire format; only where it lives and how it authenticates differ. */
const quirks: OpenAIFamilyQuirks = {
  name: 'azure',
  otelName: 'azure.ai.openai',
  nativeStructuredOutputs: true,
  embeddings: true,
  envPrefix: 'AZURE',
  // The resource endpoint, e.g. https://my-resource.openai.azure.com; there is no shared default.
  defaultBaseURL: '',
  requiresApiKey: true,
  maxTokensField: 'max_completion_tokens',
  streamUsage: true,
  newToolKinds: true,
  unsupportedParams: ['cached_content'],
  webSearchModels: OPENAI_SEARCH_MODELS,
};

/**
 * Azure OpenAI through the `openai` SDK's Azure client: the deployment name goes in the URL path
 * (`/openai/deployments/{deployment}/chat/completions?api-version=…`) and the key in the `api-key` header. Only the
 * `AZURE_*` settings count: the client is given its whole base URL (never `endpoint`, which the SDK refuses beside
 * the `OPENAI_BASE_URL` it reads from the environment), and no OpenAI organization or project (`OPENAI_ORG_ID`,
 * `OPENAI_PROJECT_ID` are another provider's).
 */
const family = openAIFamilyProvider(quirks);

export const azureProvider: ProviderDefinition<AzureSettings> = {
  ...family,
  resolveCredentials(configured, env) {
    const found = keyAndEndpoint(family, configured, env);
    const apiVersion = configured.apiVersion ?? env.AZURE_API_VERSION;
    return 'missing' in found || !apiVersion ? found : { ...found, apiVersion };
  },
  create: async (settings) => {
    const [{ AzureOpenAI }, { OpenAIProvider }, { sdkClientOptions }, { sdkTransport }] = await Promise.all([
      importOptional('openai', 'Azure OpenAI', () => import('openai')),
      import('../openai/adapter.ts'),
      import('../provider.ts'),
      import('../openai/openai-transport.ts'),
    ]);
    const client = new AzureOpenAI({
      ...sdkClientOptions(settings),
      baseURL: `${settings.baseURL.replace(/\/+$/, '')}/openai`,
      apiVersion: settings.apiVersion ?? '2024-10-21',
      organization: null,
      project: null,
    });
    return new OpenAIProvider(sdkTransport(client), settings, quirks, settings.deployments);
  },
};
