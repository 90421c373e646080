import type { OpenAIFamilyQuirks } from '../openai/family.ts';
import { OpenAIProvider } from '../openai/adapter.ts';
import { sdkClientOptions, type Provider, type ResolvedProviderSettings } from '../provider.ts';

/**
 * Azure OpenAI through the `openai` SDK's Azure client: the deployment name goes in the URL path
 * (`/openai/deployments/{deployment}/chat/completions?api-version=…`) and the key in the `api-key` header.
 * Request and response are the OpenAI wire format, so the OpenAI adapter does the rest.
 */
export async function createAzureProvider(settings: ResolvedProviderSettings, quirks: OpenAIFamilyQuirks): Promise<Provider> {
  const { AzureOpenAI } = await import('openai');
  const client = new AzureOpenAI({ ...sdkClientOptions(settings), endpoint: settings.baseURL, apiVersion: settings.apiVersion ?? '2024-10-21' });
  return new OpenAIProvider(client, settings, quirks);
}
