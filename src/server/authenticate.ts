import type { ApiKeyCheck, ApiKeyInfo } from './api-keys.ts';
import type { KeyStore } from './key-store.ts';
import { HttpError } from './responses.ts';

const MESSAGES = {
  missing:
    "You didn't provide an API key. Send it as 'Authorization: Bearer sy-…' " +
    '(create one with: switchyard keys create).',
  invalid: 'Incorrect API key provided. Create one with: switchyard keys create.',
  revoked: 'This API key has been revoked. Create a new one with: switchyard keys create.',
  expired: 'This API key has expired. Create a new one with: switchyard keys create.',
} as const;

/** The key of an `Authorization: Bearer <key>` header, or a 401 in the OpenAI shape (`code: invalid_api_key`). */
export async function authenticate(authorization: string | undefined, keys: KeyStore): Promise<ApiKeyInfo> {
  return verdict(await keys.check(bearerKey(authorization)));
}

/** `authenticate` again, later, by the key's digest (`keyDigest` of `bearerKey`): a 401 once it is refused. */
export async function reauthenticate(digest: string, keys: KeyStore): Promise<ApiKeyInfo> {
  return verdict(await keys.checkDigest(digest));
}

/** The key of an `Authorization: Bearer <key>` header. */
export function bearerKey(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

function verdict(result: ApiKeyCheck): ApiKeyInfo {
  if (result.ok) return result.key;
  throw new HttpError(401, MESSAGES[result.reason], {
    type: result.reason === 'missing' ? 'invalid_request_error' : 'authentication_error',
    code: 'invalid_api_key',
    headers: { 'www-authenticate': 'Bearer realm="switchyard"' },
  });
}
