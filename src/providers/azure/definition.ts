import { type OpenAIFamilyQuirks, openAIFamilyProvider } from '../openai/family.ts';

/** Azure OpenAI speaks the OpenAI wire format; only where it lives and how it authenticates differ. */
const quirks: OpenAIFamilyQuirks = {
  name: 'azure',
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
};

/**
 * Azure OpenAI through the `openai` SDK's Azure client: the deployment name goes in the URL path
 * (`/openai/deployments/{deployment}/chat/completions?api-version=…`) and the key in the `api-key` header. Only the
 * `AZURE_*` settings count: the client is given its whole base URL (never `endpoint`, which the SDK refuses beside
 * the `OPENAI_BASE_URL` it reads from the environment), and no OpenAI organization or project (`OPENAI_ORG_ID`,
 * `OPENAI_PROJECT_ID` are another provider's).
 */
export const azureProvider = openAIFamilyProvider(quirks, async (settings) => {
  const [{ AzureOpenAI }, { OpenAIProvider }, { sdkClientOptions }] = await Promise.all([
    import('openai'),
    import('../openai/adapter.ts'),
    import('../provider.ts'),
  ]);
  const client = new AzureOpenAI({
    ...sdkClientOptions(settings),
    baseURL: `${settings.baseURL.replace(/\/+$/, '')}/openai`,
    apiVersion: settings.apiVersion ?? '2024-10-21',
    organization: null,
    project: null,
  });
  return new OpenAIProvider(client, settings, quirks);
});
