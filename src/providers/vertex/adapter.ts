import { InternalError, ProviderError } from '../../errors.ts';
import { importOptional, MissingPackageError } from '../../internal/optional-package.ts';
import type { CompletionChunk } from '../../types.ts';
import { errorMapper } from '../error-mapper.ts';
import { mapGoogleError } from '../google/map-google-error.ts';
import { googleMedia } from '../google/media.ts';
import { checkedModelName } from '../google/model-name.ts';
import type { Provider, ProviderCall, ProviderCompletion, ResolvedProviderSettings } from '../provider.ts';
import { wireHeaders } from '../wire/wire-headers.ts';
import { vertexAuthClient } from './auth.ts';
import type { VertexSettings } from './definition.ts';

/** Claude models on Vertex (`claude-sonnet-4-5@20250929`); every other model is Google's. */
const CLAUDE = /^claude-/;

/**
 * Google Vertex AI: Gemini through `@google/genai` (`vertexai: true`), Claude through `@anthropic-ai/vertex-sdk`
 * (`:rawPredict` / `:streamRawPredict`), each on the same adapter and conversions as Google's and Anthropic's own
 * APIs, with one Google auth client. The publisher is chosen by the model id. Images are Google's media adapter on
 * Vertex's endpoint.
 */
export async function createVertexProvider(settings: ResolvedProviderSettings<VertexSettings>): Promise<Provider> {
  const authClient = await vertexAuthClient(settings);
  const location = settings.region ?? 'us-central1';
  let gemini: Promise<Provider> | undefined;
  let claude: Promise<Provider> | undefined;
  const geminiProvider = async () => {
    const { GoogleGenAI } = await importOptional('@google/genai', 'Gemini on Vertex AI', () => import('@google/genai'));
    const { geminiOn } = await import('../google/adapter.ts');
    const client = new GoogleGenAI({
      vertexai: true,
      ...(settings.project ? { project: settings.project } : {}),
      location,
      apiVersion: 'v1',
      googleAuthOptions: { authClient },
      httpOptions: {
        baseUrl: settings.baseURL,
        timeout: settings.timeoutMs,
        retryOptions: { attempts: 1 },
        ...(settings.fetch ? { fetch: settings.fetch } : {}),
      },
    });
    return geminiOn(client, settings, 'vertex');
  };
  const claudeProvider = async () => {
    const { AnthropicVertex } = await importOptional(
      '@anthropic-ai/vertex-sdk',
      'Claude on Vertex AI',
      () => import('@anthropic-ai/vertex-sdk'),
    );
    const { claudeOn } = await import('../anthropic/adapter.ts');
    const client = new AnthropicVertex({
      region: location,
      projectId: settings.project ?? null,
      baseURL: `${settings.baseURL.replace(/\/+$/, '')}/v1`,
      maxRetries: 0,
      timeout: settings.timeoutMs,
      authClient,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    });
    // The Vertex client is Anthropic's: its `post` of /v1/messages goes to the model's :rawPredict.
    return claudeOn(client as unknown as Parameters<typeof claudeOn>[0], settings, 'vertex');
  };
  const providerFor = (call: ProviderCall) => {
    // Both SDKs put the name into the URL's path as it is (Claude's `…/models/<name>:rawPredict`).
    checkedModelName(call.body.model, 'vertex');
    return providerOf(call);
  };
  const providerOf = (call: ProviderCall) =>
    (CLAUDE.test(call.body.model) ? (claude ??= claudeProvider()) : (gemini ??= geminiProvider())).catch(
      (error: unknown) => {
        throw notInstalled(error, call.body.model);
      },
    );
  // Google's media models (Imagen's :predict, Gemini's images) on Vertex's URL with the same auth client's token.
  const root = `${settings.baseURL.replace(/\/+$/, '')}/v1/projects/${settings.project}/locations/${location}`;
  const media = googleMedia(
    settings,
    {
      root: `${root}/publishers/google`,
      headers: async () => {
        const { token } = await authClient.getAccessToken();
        if (!token) throw new InternalError('The Google auth client gave no access token for Vertex AI.');
        return wireHeaders({ authorization: `Bearer ${token}` }, settings.headers, 'application/json');
      },
    },
    errorMapper('vertex', settings, mapGoogleError),
  );
  return {
    name: 'vertex',
    media,
    complete: async (call): Promise<ProviderCompletion> => (await providerFor(call)).complete(call),
    stream: async (call): Promise<AsyncIterable<CompletionChunk>> => (await providerFor(call)).stream(call),
  };
}

/**
 * The Claude SDK is loaded on the first Claude call, after the adapter was made: its absence fails that call as the
 * configuration error it is (not retried, and the message says what to install).
 */
function notInstalled(error: unknown, model: string): unknown {
  if (!(error instanceof MissingPackageError)) return error;
  return new ProviderError(error.message, {
    provider: 'vertex',
    model,
    status: 503,
    type: 'server_error',
    code: 'provider_not_configured',
    retryable: false,
    cause: error,
  });
}
