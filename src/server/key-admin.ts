import type { ApiKeyInfo } from './api-keys.ts';
import type { CreateKeyInput } from './key-input.ts';
import { childGrant, requireScope, SCOPES } from './key-scopes.ts';
import type { KeyStore } from './key-store.ts';
import { HttpError } from './responses.ts';

/**
 * Keys managed by a key (`/v1/keys`, the MCP tools `create_api_key`, `list_api_keys`, `revoke_api_key`): each needs
 * `keys:create`; a key sees, mints under and revokes only its own descendants, and an admin key (every scope, minted
 * by no other key) every key. Nothing returned holds a hash; a created key is in the one answer that creates it.
 */

/** A key minted by no other key with every scope: it manages every key of the store. */
export function isAdminKey(key: ApiKeyInfo): boolean {
  return key.ancestors.length === 0 && SCOPES.every((scope) => key.scopes.includes(scope));
}

/** A new key under `caller`, never wider than it; shown once, in this answer. */
export async function createKey(keys: KeyStore, caller: ApiKeyInfo, input: CreateKeyInput) {
  requireScope(caller, 'keys:create');
  const { name, scopes, allowed_agents, allowed_models, expires_in_seconds } = input;
  const grant = childGrant(caller, {
    ...(scopes ? { scopes } : {}),
    ...(allowed_agents ? { allowed_agents } : {}),
    ...(allowed_models ? { allowed_models } : {}),
    ...(expires_in_seconds ? { expires_at: new Date(Date.now() + expires_in_seconds * 1000).toISOString() } : {}),
  });
  const { key, info } = await keys.create(name, { grant, parentId: caller.id });
  const { id, prefix, created_at, parent_id, ancestors, tenant } = info;
  return { key, id, name: info.name, prefix, created_at, parent_id, ancestors, tenant, ...grant };
}

/** The keys `caller` manages: its descendants, or every key for an admin key. */
export async function listKeys(keys: KeyStore, caller: ApiKeyInfo): Promise<ApiKeyInfo[]> {
  requireScope(caller, 'keys:create');
  const all = await keys.list();
  if (isAdminKey(caller)) return all;
  const mine = new Set(await keys.descendants(caller.id));
  return all.filter((key) => mine.has(key.id));
}

/** Revokes a key `caller` manages (by id or prefix) and every key under it; any other is not found. */
export async function revokeKey(keys: KeyStore, caller: ApiKeyInfo, idOrPrefix: string): Promise<ApiKeyInfo> {
  const target = (await listKeys(keys, caller)).find((key) => key.id === idOrPrefix || key.prefix === idOrPrefix);
  if (!target)
    throw new HttpError(404, `No key "${idOrPrefix}" among the keys this API key manages.`, { code: 'key_not_found' });
  return keys.revoke(target.id);
}
