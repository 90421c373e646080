import type * as Zod from 'zod';
import { childGrant, isAdminKey } from '../../access/lineage.ts';
import { childMcpTools } from '../../access/mcp-tools.ts';
import type { KeyGrant } from '../../access/scopes.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import type { ApiKeyInfo } from '../api-keys.ts';
import { type CreateKeyInput, createKeyInput } from '../key-input.ts';
import type { KeyStore } from '../key-store.ts';
import { defineOperation } from '../operation.ts';
import { HttpError } from '../responses.ts';

/**
 * Keys managed by a key (`/v1/keys`, the MCP tools `create_api_key`, `list_api_keys`, `revoke_api_key`), each
 * needing `keys:create`: a key sees, mints under and revokes only its own descendants, and an admin key (every scope,
 * minted by no other key) every key. Nothing returned holds a hash; a created key is in the one answer that creates
 * it.
 */
const loadZod = lazyRequire<typeof Zod>('zod');
const KEY_SCOPE = 'keys:create';

export const createApiKey = defineOperation({
  name: 'create_api_key',
  description:
    'Creates an API key for this server, a child of the calling key: never wider than it (scopes, agents, ' +
    'models, expiry), revoked with it. The key is shown once, in this answer.',
  scope: KEY_SCOPE,
  input: createKeyInput,
  invalid(error) {
    const issue = error.issues[0]!;
    const param = issue.path.join('.') || null;
    return new HttpError(400, `Invalid key request${param ? ` at "${param}"` : ''}: ${issue.message}.`, {
      param,
      code: 'invalid_parameter',
    });
  },
  handle: (input: CreateKeyInput, { keys, access }) => createKey(keys, access.key, input),
  http: { method: 'POST', path: /^\/v1\/keys$/, body: true, input: ({ body }) => body ?? {}, status: 201 },
});

export const listApiKeys = defineOperation({
  name: 'list_api_keys',
  description:
    'Lists the API keys the calling key manages (never their hashes): the keys minted under it, however deep, ' +
    'or every key for an admin key.',
  scope: KEY_SCOPE,
  input: () => loadZod().z.object({}).strict(),
  hints: { readOnlyHint: true },
  handle: (_input, { keys, access }) => managedKeys(keys, access.key),
  http: { method: 'GET', path: /^\/v1\/keys$/, input: () => ({}), reply: (data) => ({ object: 'list', data }) },
});

let revokeInput: ReturnType<typeof buildRevokeInput> | undefined;
const buildRevokeInput = () =>
  loadZod()
    .z.object({
      key: loadZod()
        .z.string()
        .min(1)
        .max(200)
        .describe('The id (key_…) or prefix (sy-AbCdEfGh) of the key to revoke.'),
    })
    .strict();

export const revokeApiKey = defineOperation({
  name: 'revoke_api_key',
  description: 'Revokes an API key the calling key manages, and every key minted under it.',
  scope: KEY_SCOPE,
  input: () => (revokeInput ??= buildRevokeInput()),
  hints: { destructiveHint: true },
  async handle({ key: idOrPrefix }, { keys, access }) {
    const managed = await managedKeys(keys, access.key);
    const target = managed.find((key) => key.id === idOrPrefix || key.prefix === idOrPrefix);
    if (!target)
      throw new HttpError(404, `No key "${idOrPrefix}" among the keys this API key manages.`, {
        code: 'key_not_found',
      });
    return keys.revoke(target.id);
  },
  http: { method: 'DELETE', path: /^\/v1\/keys\/([^/]+)$/, input: ({ params }) => ({ key: params[0] }) },
});

/** A new key under `caller`, never wider than it; shown once, in this answer. */
async function createKey(keys: KeyStore, caller: ApiKeyInfo, input: CreateKeyInput) {
  const { name, scopes, allowed_agents, allowed_models, mcp_tools, expires_in_seconds } = input;
  const grant: KeyGrant = childGrant(caller, {
    ...(scopes ? { scopes } : {}),
    ...(allowed_agents ? { allowed_agents } : {}),
    ...(allowed_models ? { allowed_models } : {}),
    ...(expires_in_seconds ? { expires_at: new Date(Date.now() + expires_in_seconds * 1000).toISOString() } : {}),
  });
  grant.mcp_tools = childMcpTools(caller, mcp_tools);
  const { key, info } = await keys.create(name, { grant, parentId: caller.id });
  const { id, prefix, created_at, parent_id, ancestors, tenant } = info;
  return { key, id, name: info.name, prefix, created_at, parent_id, ancestors, tenant, ...grant };
}

/** The keys `caller` manages: its descendants, or every key for an admin key. */
async function managedKeys(keys: KeyStore, caller: ApiKeyInfo): Promise<ApiKeyInfo[]> {
  const all = await keys.list();
  if (isAdminKey(caller)) return all;
  const mine = new Set(await keys.descendants(caller.id));
  return all.filter((key) => mine.has(key.id));
}
