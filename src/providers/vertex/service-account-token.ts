import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import { TokenRequestError } from '../provider-errors.ts';

const nodeCrypto = lazyNodeBuiltin('node:crypto', 'Vertex AI service-account signing');

/** The fields of a service account key file that a token request needs. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string | undefined;
  token_uri?: string | undefined;
}

export interface AccessToken {
  access_token: string;
  expiry_date: number;
}

const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** What Google grants a self-signed assertion at most; the token then lasts as long. */
const LIFETIME_S = 3600;

/**
 * Access tokens for a service account: an RS256-signed assertion (RFC 7523) posted to the key's own `token_uri`
 * through the provider's fetch. Ours rather than google-auth-library's JWT client, which always posts to Google's
 * default token host, whatever the key says. Concurrent asks share one request.
 */
export function serviceAccountTokens(
  key: ServiceAccountKey,
  scope: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): () => Promise<AccessToken> {
  const tokenURI = key.token_uri || GOOGLE_TOKEN_URI;
  let pending: Promise<AccessToken> | undefined;
  const ask = async (): Promise<AccessToken> => {
    const body = new URLSearchParams({ grant_type: JWT_BEARER, assertion: assertion(key, scope, tokenURI) });
    const response = await fetchImpl(tokenURI, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const answer = parsedObject(text);
    if (!response.ok || typeof answer?.access_token !== 'string') {
      // OAuth's error fields only: the body of a failed token request never holds the token.
      const reason = [answer?.error, answer?.error_description].filter((part) => typeof part === 'string').join(': ');
      const message = `the service account's token request to ${tokenURI} answered ${response.status} ${reason}`;
      throw new TokenRequestError(message, response.status);
    }
    const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in : LIFETIME_S;
    return { access_token: answer.access_token, expiry_date: Date.now() + lifetime * 1000 };
  };
  return () => {
    pending ??= ask().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

function assertion(key: ServiceAccountKey, scope: string, audience: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = { iss: key.client_email, scope, aud: audience, iat: now, exp: now + LIFETIME_S };
  const unsigned = `${base64url(header)}.${base64url(claims)}`;
  const signature = nodeCrypto().createSign('RSA-SHA256').update(unsigned).sign(key.private_key, 'base64url');
  return `${unsigned}.${signature}`;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
