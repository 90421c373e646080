import type { AuthClient } from 'google-auth-library';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import { importOptional } from '../../internal/optional-package.ts';
import type { ResolvedProviderSettings } from '../provider.ts';
import type { VertexSettings } from './definition.ts';
import { type ServiceAccountKey, serviceAccountTokens } from './service-account-token.ts';

const nodeFs = lazyNodeBuiltin('node:fs/promises', 'Vertex AI credentials');

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
type Auth = typeof import('google-auth-library');

/**
 * The Google auth client both Vertex SDKs are handed. Every token request it makes goes through the provider's
 * `fetch` (the pooled transport, its proxy and timeouts, or the caller's): an OAuth access token given as `apiKey`
 * needs none; a service account key, given or as the Application Default Credentials file, asks its own `token_uri`;
 * gcloud's `authorized_user` file and an `external_account` file go through google-auth-library's clients of those
 * types on that fetch.
 */
export async function vertexAuthClient(settings: ResolvedProviderSettings<VertexSettings>): Promise<AuthClient> {
  const auth = await importOptional('google-auth-library', 'Vertex AI', () => import('google-auth-library'));
  const fetchImpl = settings.fetch ?? fetch;
  const transporterOptions = { fetchImplementation: fetchImpl };
  if (settings.serviceAccount) {
    const key = parsed(settings.serviceAccount);
    // JSON.parse's own message would quote the text, and the key in it.
    if (!key) throw new TypeError('providers.vertex.serviceAccount is not JSON (a service account key file).');
    return serviceAccountClient(auth, checkedKey(key, 'providers.vertex.serviceAccount'), fetchImpl, settings);
  }
  if (settings.apiKey !== 'unused') {
    const client = new auth.OAuth2Client({ transporterOptions });
    // An access token the caller refreshes; no refresh token, so nothing is asked of Google's token host.
    client.setCredentials({ access_token: settings.apiKey, expiry_date: Date.now() + 3_600_000 });
    return client;
  }
  const file = settings.credentialsFile;
  if (!file) throw new TypeError('Vertex AI has no credentials (no token, service account or credentials file).');
  const json = parsed(await nodeFs().readFile(file, 'utf8'));
  // The message names the file, never its content.
  if (!json) throw new TypeError(`The Google credentials file ${file} is not JSON.`);
  switch (json.type) {
    case 'service_account':
      return serviceAccountClient(auth, checkedKey(json, file), fetchImpl, settings);
    case 'authorized_user': {
      // gcloud's own login; a token_uri in the file wins over Google's default token host.
      const endpoints = typeof json.token_uri === 'string' ? { oauth2TokenUrl: json.token_uri } : {};
      const client = new auth.UserRefreshClient({ transporterOptions, endpoints });
      client.fromJSON(json);
      return client;
    }
    case 'external_account': {
      // Workload identity federation: the STS exchange at the file's token_url goes through the transporter.
      const client = auth.ExternalAccountClient.fromJSON({ ...json, transporterOptions } as never);
      if (!client) throw new TypeError(`The Google credentials file ${file} is not a usable external account.`);
      client.scopes = [SCOPE];
      return client;
    }
    default:
      // Any other type (impersonation, GDCH): the library's own choice of client, with the same transporter.
      return new auth.GoogleAuth({
        keyFilename: file,
        scopes: [SCOPE],
        clientOptions: { transporterOptions },
      }).getClient();
  }
}

function serviceAccountClient(
  auth: Auth,
  key: ServiceAccountKey,
  fetchImpl: typeof fetch,
  settings: ResolvedProviderSettings<VertexSettings>,
): AuthClient {
  const client = new auth.OAuth2Client({ transporterOptions: { fetchImplementation: fetchImpl } });
  client.refreshHandler = serviceAccountTokens(key, SCOPE, fetchImpl, settings.timeoutMs);
  return client;
}

function checkedKey(key: Record<string, unknown>, where: string): ServiceAccountKey {
  const { client_email: email, private_key: privateKey, private_key_id: keyId, token_uri: tokenURI } = key;
  if (typeof email !== 'string' || typeof privateKey !== 'string' || !email || !privateKey)
    throw new TypeError(`${where} needs client_email and private_key (a service account key).`);
  return {
    client_email: email,
    private_key: privateKey,
    private_key_id: typeof keyId === 'string' ? keyId : undefined,
    token_uri: typeof tokenURI === 'string' ? tokenURI : undefined,
  };
}

/** What errors must never show of a service account key: its private key, or all of it when it is not JSON. */
export function serviceAccountSecret(account: VertexSettings['serviceAccount']): string | undefined {
  if (!account) return undefined;
  const key = parsed(account);
  if (!key) return String(account);
  return typeof key.private_key === 'string' ? key.private_key : undefined;
}

function parsed(account: Record<string, unknown> | string): Record<string, unknown> | undefined {
  if (typeof account !== 'string') return account;
  try {
    const key: unknown = JSON.parse(account);
    return typeof key === 'object' && key !== null ? (key as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
