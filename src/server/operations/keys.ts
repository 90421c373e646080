import type * as Zod from 'zod';
import { childLimits, effectiveLimits, hasLimits, type KeyLimits } from '../../access/key-limits.ts';
import { childGrant, isAdminKey } from '../../access/lineage.ts';
import { childMcpTools } from '../../access/mcp-tools.ts';
import type { KeyGrant } from '../../access/scopes.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import type { ApiKeyInfo } from '../api-keys.ts';
import { type CreateKeyInput, createKeyInput, type UpdateKeyInput, updateKeyInput } from '../key-input.ts';
import type { KeyLimiter } from '../key-limiter.ts';
import type { KeyStore } from '../key-store.ts';
import { defineOperation } from '../operation.ts';
import { HttpError } from '../responses.ts';

/**
 * Keys managed by a key (`/v1/keys`, the MCP tools `create_api_key`, `list_api_keys`, `update_api_key`,
 * `revoke_api_key`), each
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
    'models, expiry, limits), revoked with it. The key is shown once, in this answer.',
  scope: KEY_SCOPE,
  input: createKeyInput,
  invalid: (error) => invalidKeyRequest(error),
  handle: (input: CreateKeyInput, { keys, access, limiter }) =>
    createKey(keys, access.key, input, limiter?.defaults ?? {}),
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
  handle: async (_input, { keys, access, limiter }) => {
    const managed = await managedKeys(keys, access.key);
    return Promise.all(managed.map((key) => listed(key, limiter)));
  },
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

export const updateApiKey = defineOperation({
  name: 'update_api_key',
  description:
    'Changes the limits of an API key the calling key manages (requests and tokens a minute, requests in flight, ' +
    "dollar budgets per window), replacing them all; each within the limits of the key's parent.",
  scope: KEY_SCOPE,
  input: updateKeyInput,
  invalid: (error) => invalidKeyRequest(error),
  async handle({ key: idOrPrefix, limits }: UpdateKeyInput, { keys, access, limiter }) {
    const managed = await managedKeys(keys, access.key);
    const target = managed.find((key) => key.id === idOrPrefix || key.prefix === idOrPrefix);
    if (!target)
      throw new HttpError(404, `No key "${idOrPrefix}" among the keys this API key manages.`, {
        code: 'key_not_found',
      });
    const parent = [access.key, ...managed].find((key) => key.id === target.parent_id);
    const checked = limits && parent ? childLimits(ceilingOf(parent, limiter?.defaults ?? {}), limits) : limits;
    return listed(await keys.updateLimits(target.id, hasLimits(checked) ? checked : null), limiter);
  },
  http: {
    method: 'PATCH',
    path: /^\/v1\/keys\/([^/]+)$/,
    body: true,
    input: ({ params, body }) => ({ ...(body as object), key: params[0] }),
  },
});

/** A key as listed: its grant, its limits (its own, else the server's) and what it used in the current windows. */
async function listed(key: ApiKeyInfo, limiter: KeyLimiter | undefined) {
  const { ancestor_limits: _above, limits: own, ...info } = key;
  if (!limiter) return { ...info, limits: own ?? null };
  const { limits, usage } = await limiter.usage(key);
  return { ...info, limits: own ?? null, effective_limits: limits, usage };
}

/** What a key's children may have at most: its own limits, else the server's; an admin key's are unbounded. */
function ceilingOf(parent: ApiKeyInfo, defaults: KeyLimits): KeyLimits {
  return isAdminKey(parent) ? {} : effectiveLimits(parent.limits, defaults);
}

/** A new key under `caller`, never wider than it; shown once, in this answer. */
async function createKey(keys: KeyStore, caller: ApiKeyInfo, input: CreateKeyInput, defaults: KeyLimits) {
  const { name, scopes, allowed_agents, allowed_models, mcp_tools, sensitive_data, expires_in_seconds } = input;
  const grant: KeyGrant = childGrant(caller, {
    ...(scopes ? { scopes } : {}),
    ...(allowed_agents ? { allowed_agents } : {}),
    ...(allowed_models ? { allowed_models } : {}),
    ...(sensitive_data ? { sensitive_data } : {}),
    ...(expires_in_seconds ? { expires_at: new Date(Date.now() + expires_in_seconds * 1000).toISOString() } : {}),
  });
  grant.mcp_tools = childMcpTools(caller, mcp_tools);
  const limits = input.limits && childLimits(ceilingOf(caller, defaults), input.limits);
  if (hasLimits(limits)) grant.limits = limits;
  const { key, info } = await keys.create(name, { grant, parentId: caller.id });
  const { id, prefix, created_at, parent_id, ancestors, tenant } = info;
  return {
    key,
    id,
    name: info.name,
    prefix,
    created_at,
    parent_id,
    ancestors,
    tenant,
    ...grant,
    limits: limits ?? null,
  };
}

function invalidKeyRequest(error: Zod.ZodError): HttpError {
  const issue = error.issues[0]!;
  const param = issue.path.join('.') || null;
  return new HttpError(400, `Invalid key request${param ? ` at "${param}"` : ''}: ${issue.message}.`, {
    param,
    code: 'invalid_parameter',
  });
}

/** The keys `caller` manages: its descendants, or every key for an admin key. */
async function managedKeys(keys: KeyStore, caller: ApiKeyInfo): Promise<ApiKeyInfo[]> {
  return keys.list(isAdminKey(caller) ? {} : { under: caller.id });
}
