import { createVerify, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendJSON } from './http.ts';

/** One token request as the fake OAuth endpoint read it. */
export interface TokenRequest {
  path: string;
  grant: string;
  /** A JWT-bearer assertion's `aud` and `scope` claims. */
  audience?: string;
  scope?: string;
  clientId?: string;
}

export interface FakeGoogleOAuthServer {
  /** The token endpoint's URL, for a key file's `token_uri`. */
  tokenURL: string;
  requests: TokenRequest[];
  close(): Promise<void>;
}

/**
 * Google's OAuth token endpoint: the JWT-bearer grant of a service account (the assertion's RS256 signature checked
 * against `publicKey`) and the refresh-token grant of gcloud's `authorized_user` login (`refreshToken` must match).
 * It reads a form body, which the shared fake-server plumbing (JSON) does not, so it is a server of its own.
 */
export async function startFakeGoogleOAuthServer(expected: {
  publicKey: KeyObject;
  refreshToken?: string;
}): Promise<FakeGoogleOAuthServer> {
  const requests: TokenRequest[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const grant = form.get('grant_type') ?? '';
    const seen: TokenRequest = { path: request.url ?? '', grant };
    requests.push(seen);
    if (grant === 'refresh_token') {
      seen.clientId = form.get('client_id') ?? '';
      if (form.get('refresh_token') !== expected.refreshToken)
        return sendJSON(response, 400, { error: 'invalid_grant' });
      return sendJSON(response, 200, { access_token: 'ya29.fake-user-token', expires_in: 3600, token_type: 'Bearer' });
    }
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(expected.publicKey, signature ?? '', 'base64url');
    if (!valid) return sendJSON(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    const { aud, scope } = JSON.parse(Buffer.from(claims!, 'base64url').toString('utf8'));
    Object.assign(seen, { audience: aud, scope });
    sendJSON(response, 200, {
      access_token: `ya29.fake-for-${String(scope).split('/').at(-1)}`,
      expires_in: 3600,
      token_type: 'Bearer',
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    tokenURL: `http://127.0.0.1:${port}/token`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
