import { createKey, listKeys, revokeKey } from '../key-admin.ts';
import type { KeyStore } from '../key-store.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/** The keys admin API: list, create under the calling key, revoke; what a key manages is in `key-admin.ts`. */
export function keyRoutes(keys: KeyStore, maxBodyBytes: number): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/v1\/keys$/,
      auth: 'key',
      scope: 'keys:create',
      async handle({ key }) {
        return json({ object: 'list', data: await listKeys(keys, key!) });
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/keys$/,
      auth: 'key',
      scope: 'keys:create',
      async handle({ request, key }) {
        const { createKeyInput } = await import('../key-input.ts');
        const parsed = createKeyInput.safeParse((await readJsonBody(request, maxBodyBytes)) ?? {});
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const param = issue.path.join('.') || null;
          throw new HttpError(400, `Invalid key request${param ? ` at "${param}"` : ''}: ${issue.message}.`, {
            param,
            code: 'invalid_parameter',
          });
        }
        return json(await createKey(keys, key!, parsed.data), 201);
      },
    },
    {
      method: 'DELETE',
      path: /^\/v1\/keys\/([^/]+)$/,
      auth: 'key',
      scope: 'keys:create',
      async handle({ key, params: [idOrPrefix = ''] }) {
        return json(await revokeKey(keys, key!, idOrPrefix));
      },
    },
  ];
}
