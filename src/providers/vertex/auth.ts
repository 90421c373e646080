import type { AuthClient } from 'google-auth-library';
import type { ResolvedProviderSettings } from '../provider.ts';
import type { VertexSettings } from './definition.ts';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The Google auth client both Vertex SDKs are handed: an OAuth access token given as `apiKey`, or a service
 * account's key (its token requests go through the provider's `fetch`, like every other request), else
 * `undefined`: the SDKs then use Application Default Credentials.
 */
export async function vertexAuthClient(
  settings: ResolvedProviderSettings<VertexSettings>,
): Promise<AuthClient | undefined> {
  const auth = await import('google-auth-library');
  const transporterOptions = settings.fetch ? { fetchImplementation: settings.fetch } : {};
  if (settings.serviceAccount) {
    const key = parsed(settings.serviceAccount);
    // JSON.parse's own message would quote the text, and the key in it.
    if (!key) throw new TypeError('providers.vertex.serviceAccount is not JSON (a service account key file).');
    const { client_email: email, private_key: privateKey } = key;
    if (typeof email !== 'string' || typeof privateKey !== 'string' || !email || !privateKey)
      throw new TypeError(
        'providers.vertex.serviceAccount needs client_email and private_key (a service account key).',
      );
    return new auth.JWT({ email, key: privateKey, scopes: [SCOPE], transporterOptions });
  }
  if (settings.apiKey !== 'unused') {
    const client = new auth.OAuth2Client({ transporterOptions });
    // An access token the caller refreshes; no refresh token, so nothing is asked of Google's token host.
    client.setCredentials({ access_token: settings.apiKey, expiry_date: Date.now() + 3_600_000 });
    return client;
  }
  return undefined;
}

/** What errors must never show of a service account key: its private key, or all of it when it is not JSON. */
export function serviceAccountSecret(account: VertexSettings['serviceAccount']): string | undefined {
  if (!account) return undefined;
  const key = parsed(account);
  if (!key) return String(account);
  return typeof key.private_key === 'string' ? key.private_key : undefined;
}

function parsed(
  account: Record<string, unknown> | string,
): { client_email?: unknown; private_key?: unknown } | undefined {
  if (typeof account !== 'string') return account;
  try {
    const key: unknown = JSON.parse(account);
    return typeof key === 'object' && key !== null ? key : undefined;
  } catch {
    return undefined;
  }
}
