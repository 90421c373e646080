import type { AuthClient } from 'google-auth-library';
import type { ResolvedProviderSettings } from '../provider.ts';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The Google auth client both Vertex SDKs are handed: an OAuth access token given as `apiKey`, or a service
 * account's key (its token requests go through the provider's `fetch`, like every other request), else
 * `undefined`: the SDKs then use Application Default Credentials.
 */
export async function vertexAuthClient(settings: ResolvedProviderSettings): Promise<AuthClient | undefined> {
  const auth = await import('google-auth-library');
  const transporterOptions = settings.fetch ? { fetchImplementation: settings.fetch } : {};
  if (settings.serviceAccount) {
    const key = (
      typeof settings.serviceAccount === 'string' ? JSON.parse(settings.serviceAccount) : settings.serviceAccount
    ) as { client_email?: string; private_key?: string };
    if (!key.client_email || !key.private_key)
      throw new TypeError(
        'providers.vertex.serviceAccount needs client_email and private_key (a service account key).',
      );
    return new auth.JWT({ email: key.client_email, key: key.private_key, scopes: [SCOPE], transporterOptions });
  }
  if (settings.apiKey !== 'unused') {
    const client = new auth.OAuth2Client({ transporterOptions });
    // An access token the caller refreshes; no refresh token, so nothing is asked of Google's token host.
    client.setCredentials({ access_token: settings.apiKey, expiry_date: Date.now() + 3_600_000 });
    return client;
  }
  return undefined;
}
