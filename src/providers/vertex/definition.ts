import { SUPPORTS_EVERYTHING } from '../../catalog/model-profile.ts';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import { shapeOfAnthropicRequest } from '../anthropic/convert-request.ts';
import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';
import { serviceAccountSecret } from './auth.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'Vertex AI credentials');
const nodeOs = lazyNodeBuiltin('node:os', 'Vertex AI credentials');
const nodePath = lazyNodeBuiltin('node:path', 'Vertex AI credentials');

/** Vertex AI's own settings, beside the shared ones. */
export interface VertexSettings {
  /** The Google Cloud project (default from `GOOGLE_CLOUD_PROJECT`). */
  project?: string | undefined;
  /** The location (default from `GOOGLE_CLOUD_LOCATION`, else `us-central1`); `global` for the global endpoint. */
  region?: string | undefined;
  /**
   * A service account's JSON key (parsed or as text); without it (or `apiKey` as an OAuth access token), Application
   * Default Credentials.
   */
  serviceAccount?: Record<string, unknown> | string | undefined;
  /**
   * The Application Default Credentials file: a service account key, gcloud's `authorized_user` login or an
   * `external_account` (default `GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's application_default_credentials.json).
   */
  credentialsFile?: string | undefined;
}

/**
 * Google Vertex AI: Gemini and Claude (`claude-…@date` ids) in one Google Cloud project. Credentials: an OAuth
 * access token (`apiKey` / `VERTEX_ACCESS_TOKEN`), a service account key (`serviceAccount`), else Application
 * Default Credentials' file (`credentialsFile`, `GOOGLE_APPLICATION_CREDENTIALS` or gcloud's).
 */
export const vertexProvider: ProviderDefinition<VertexSettings> = {
  id: 'vertex',
  envPrefix: 'VERTEX',
  defaultBaseURL: '',
  requiresApiKey: false,
  capabilities: {
    nativeOutput: nativeOutputWhere(true),
    // Imagen and Gemini's image models, converted as on the Gemini API (google/media.ts).
    media: {
      apis: ['generateImage', 'editImage'],
      convertImage: async (call) => (await import('../google/image-parameters.ts')).imageParametersFor(call),
    },
  },
  otelName: 'gcp.vertex_ai',
  uncatalogued: {
    context_window: 1_000_000,
    max_output_tokens: 65_536,
    supports: { ...SUPPORTS_EVERYTHING, structured_outputs: false },
    reasoning: { control: 'budget', can_disable: false, min_budget: 128 },
  },
  resolveCredentials(configured, env) {
    const project = configured.project ?? env.GOOGLE_CLOUD_PROJECT ?? env.VERTEX_PROJECT;
    if (!project) return { missing: 'GOOGLE_CLOUD_PROJECT (or providers.vertex.project)' };
    const location = configured.region ?? env.GOOGLE_CLOUD_LOCATION ?? env.VERTEX_LOCATION ?? 'us-central1';
    const apiKey = configured.apiKey ?? env.VERTEX_ACCESS_TOKEN;
    const gcloudFile = nodePath().join(nodeOs().homedir(), '.config', 'gcloud', 'application_default_credentials.json');
    const credentialsFile =
      configured.credentialsFile ??
      env.GOOGLE_APPLICATION_CREDENTIALS ??
      (nodeFs().existsSync(gcloudFile) ? gcloudFile : undefined);
    if (!apiKey && !configured.serviceAccount && !credentialsFile)
      return {
        missing:
          'Google credentials (GOOGLE_APPLICATION_CREDENTIALS, providers.vertex.serviceAccount or VERTEX_ACCESS_TOKEN)',
      };
    const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
    const baseURL = configured.baseURL ?? env.VERTEX_BASE_URL ?? `https://${host}`;
    const file = credentialsFile ? { credentialsFile } : {};
    return { apiKey: apiKey ?? 'unused', baseURL, region: location, project, ...file };
  },
  secrets: (settings) => [serviceAccountSecret(settings.serviceAccount)],
  create: async (settings) => (await import('./adapter.ts')).createVertexProvider(settings),
  convertRequest: async (call, streaming) => {
    if (/^claude-/.test(call.body.model)) {
      return shapeOfAnthropicRequest(call, streaming, 'vertex');
    }
    const { googleProvider } = await import('../google/definition.ts');
    return googleProvider.convertRequest!(call, streaming);
  },
};
