import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, createGateway, type ProviderError } from '../../src/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFakeGoogleOAuthServer } from '../fake-servers/google-oauth-server.ts';

/**
 * Vertex AI on Application Default Credentials, the usual setup: `GOOGLE_APPLICATION_CREDENTIALS` names a key file
 * whose `token_uri` is a fake OAuth endpoint on loopback. The token request must go there (not to Google's default
 * token host) and through `providers.vertex.fetch` (a counting fetch), and nothing may go around that fetch: the
 * global fetch is replaced by one that records and refuses for the duration of each test.
 */
const gemini = await startFakeGeminiServer();
const anthropic = await startFakeAnthropicServer();
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const oauth = await startFakeGoogleOAuthServer({ publicKey, refreshToken: '1//fake-refresh-token' });
afterAll(async () => {
  await Promise.all([gemini.close(), anthropic.close(), oauth.close()]);
  rmSync(directory, { recursive: true, force: true });
});

const directory = mkdtempSync(join(tmpdir(), 'switchyard-adc-'));
const keyFile = join(directory, 'service-account.json');
writeFileSync(
  keyFile,
  JSON.stringify({
    type: 'service_account',
    project_id: 'acme-prod',
    private_key_id: 'key-1',
    client_email: 'switchyard@acme-prod.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    token_uri: oauth.tokenURL,
  }),
);
const userFile = join(directory, 'application_default_credentials.json');
writeFileSync(
  userFile,
  JSON.stringify({
    type: 'authorized_user',
    client_id: 'fake-client.apps.googleusercontent.com',
    client_secret: 'fake-client-secret',
    refresh_token: '1//fake-refresh-token',
    token_uri: oauth.tokenURL,
  }),
);

const realFetch = globalThis.fetch;
let aroundTheProvider: string[] = [];
beforeEach(() => {
  aroundTheProvider = [];
  vi.stubGlobal('fetch', (input: string | URL | Request) => {
    aroundTheProvider.push(String(input instanceof Request ? input.url : input));
    return Promise.reject(new Error('a request went around the provider fetch'));
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** The provider's transport: counts every URL, and lets only loopback through. */
function countingFetch() {
  const urls: string[] = [];
  const counted: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    urls.push(url);
    if (!url.startsWith('http://127.0.0.1:')) return Promise.reject(new Error(`a test must not reach ${url}`));
    return realFetch(input, init);
  };
  return { urls, fetch: counted };
}

const hello = [{ role: 'user' as const, content: 'Hello' }];
const gatewayWith = (file: string, target: string, transport: typeof fetch) =>
  createGateway({
    env: { GOOGLE_APPLICATION_CREDENTIALS: file, GOOGLE_CLOUD_PROJECT: 'acme-prod' },
    retry: { maxRetries: 0 },
    providers: { vertex: { region: 'us-east5', baseURL: target, fetch: transport } },
  });

describe('Vertex AI on Application Default Credentials', () => {
  it("a service account key file: the assertion goes to its token_uri, through the provider's fetch", async () => {
    const transport = countingFetch();
    const before = oauth.requests.length;
    const gateway = gatewayWith(keyFile, gemini.url, transport.fetch);
    const response = await gateway.createCompletion({ model: 'vertex/gemini-2.5-flash', messages: hello });
    expect(response.choices[0]!.message.content).toBe('Hello from fake gemini-2.5-flash');
    expect(gemini.requests.at(-1)!.headers.authorization).toBe('Bearer ya29.fake-for-cloud-platform');

    const tokenRequests = oauth.requests.slice(before);
    expect(tokenRequests).toEqual([
      {
        path: '/token',
        grant: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        audience: oauth.tokenURL,
        scope: 'https://www.googleapis.com/auth/cloud-platform',
      },
    ]);
    // Every request the fake token endpoint got came through the provider's fetch, and only loopback was asked.
    expect(transport.urls.filter((url) => url === oauth.tokenURL)).toHaveLength(tokenRequests.length);
    expect(transport.urls.every((url) => url.startsWith('http://127.0.0.1:'))).toBe(true);
    expect(aroundTheProvider).toEqual([]);

    // The token is kept: a second call asks for none.
    await gateway.createCompletion({ model: 'vertex/gemini-2.5-flash', messages: hello });
    expect(oauth.requests.length).toBe(before + 1);
  });

  it("gcloud's authorized_user file: the refresh grant through the provider's fetch, Claude on Vertex", async () => {
    const transport = countingFetch();
    const before = oauth.requests.length;
    const gateway = gatewayWith(userFile, anthropic.url, transport.fetch);
    const response = await gateway.createCompletion({ model: 'vertex/claude-sonnet-4-5', messages: hello });
    expect(response.switchyard.provider).toBe('vertex');
    expect(anthropic.requests.at(-1)!.headers.authorization).toBe('Bearer ya29.fake-user-token');
    expect(oauth.requests.slice(before)).toEqual([
      { path: '/token', grant: 'refresh_token', clientId: 'fake-client.apps.googleusercontent.com' },
    ]);
    expect(transport.urls).toContain(oauth.tokenURL);
    expect(transport.urls.every((url) => url.startsWith('http://127.0.0.1:'))).toBe(true);
    expect(aroundTheProvider).toEqual([]);
  });

  it('a refused token request fails the call without showing the private key', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const wrongKey = other.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = join(directory, 'wrong-key.json');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'service_account',
        client_email: 'x@acme.iam',
        private_key: wrongKey,
        token_uri: oauth.tokenURL,
      }),
    );
    const transport = countingFetch();
    const error = (await gatewayWith(file, gemini.url, transport.fetch)
      .createCompletion({ model: 'vertex/gemini-2.5-flash', messages: hello })
      .catch((thrown: unknown) => thrown)) as ProviderError;
    // Our credentials were refused: an authentication failure (401, not retried), never "an invalid answer".
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).not.toMatch(/not valid/);
    expect(JSON.stringify(error.attempts)).toContain('answered 400 invalid_grant: Invalid JWT Signature.');
    expect(`${error.message} ${JSON.stringify(error.attempts)}`).not.toContain('PRIVATE KEY');
    expect(transport.urls).toEqual([oauth.tokenURL]);
    expect(aroundTheProvider).toEqual([]);
    const image = (await gatewayWith(file, gemini.url, transport.fetch)
      .createImage({ model: 'vertex/imagen-4.0-generate-001', prompt: 'x' })
      .catch((thrown: unknown) => thrown)) as ProviderError;
    // The images API asks the same auth client: the same failure, and the key kept out of it too.
    expect(JSON.stringify(image.attempts)).toContain('answered 400 invalid_grant: Invalid JWT Signature.');
    expect(`${image.message} ${JSON.stringify(image.attempts)}`).not.toContain('PRIVATE KEY');
  });
});
