import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { LineageRow } from '../access/key-chain.ts';
import { hasLimits, type KeyLimits, withoutEmpty } from '../access/key-limits.ts';
import { tenantOfKey } from '../access/lineage.ts';
import { isSensitiveDataMode } from '../guardrails/mode.ts';
import { limitsAbove, limitsOf } from './key-limit-rows.ts';
import { ADMIN_GRANT, type KeyGrant, type Scope } from './key-scopes.ts';

/** What makes an API key, whatever stores it: its form, hash, stored row, and the short trust of a valid one. */

export const API_KEY_PREFIX = 'sy-';
/** Characters after `sy-` shown to tell keys apart (`sy-Ab3dEf9h…`); 48 bits, never enough to guess the key. */
const DISPLAY_PREFIX_LENGTH = 8;

/** What is stored about a key: never the key itself. */
export interface ApiKeyInfo extends KeyGrant {
  id: string;
  name: string | null;
  /** `sy-` and the first 8 characters of the key, for listings and `keys revoke`. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** The key that minted this one (over MCP); revoking it revokes this one. `null` for keys made with the CLI. */
  parent_id: string | null;
  /** The keys that minted this one, nearest first (`parent_id` first); `[]` for keys made with the CLI. */
  ancestors: string[];
  /**
   * The tenant the key belongs to (`tenantOfKey`): its own id for a key made with the CLI or minted by an admin key,
   * else its parent's tenant. Its calls share a response cache and trace, workflow and agent budgets with that tenant
   * only.
   */
  tenant: string;
  /** The limits of the keys in `ancestors` that set their own, by key id (its calls count against theirs too). */
  ancestor_limits?: Record<string, KeyLimits>;
}

export type ApiKeyCheck =
  | { ok: true; key: ApiKeyInfo }
  | { ok: false; reason: 'missing' | 'invalid' | 'revoked' | 'expired' };

/** A row as stored: the grant's lists as JSON text, `scopes` null for keys from before scopes (admin keys). */
export type StoredKey = Omit<
  ApiKeyInfo,
  | 'scopes'
  | 'allowed_agents'
  | 'allowed_models'
  | 'mcp_tools'
  | 'ancestors'
  | 'tenant'
  | 'sensitive_data'
  | 'limits'
  | 'ancestor_limits'
> & {
  scopes: string | null;
  allowed_agents: string | null;
  allowed_models: string | null;
  /** `null` (and absent, before the column): the default of `mcp-tools.ts`. */
  mcp_tools?: string | null | undefined;
  /** Absent from rows read before the column existed. */
  sensitive_data?: string | null;
  /** JSON of `KeyLimits`; absent from rows read before the column existed. */
  limits?: string | null;
};

/** A stored key with the rows of the keys that minted it, nearest first (`ancestors` in keys-table.ts). */
export function fromRow(stored: StoredKey, chain: readonly LineageRow[] = []): ApiKeyInfo {
  const ancestors = chain.map((ancestor) => ancestor.id);
  const { sensitive_data, limits, ...row } = stored;
  const own = limitsOf(limits);
  const above = limitsAbove(chain);
  return {
    ...row,
    ...(isSensitiveDataMode(sensitive_data) ? { sensitive_data } : {}),
    // Only when set: a key without limits reads as it did before the column.
    ...(own ? { limits: own } : {}),
    ...(Object.keys(above).length > 0 ? { ancestor_limits: above } : {}),
    ancestors,
    tenant: tenantOf(row, chain),
    scopes: row.scopes === null ? [...ADMIN_GRANT.scopes] : scopesOf(JSON.parse(row.scopes), row.parent_id ?? null),
    allowed_agents: row.allowed_agents === null ? null : JSON.parse(row.allowed_agents),
    allowed_models: row.allowed_models === null ? null : JSON.parse(row.allowed_models),
    mcp_tools: typeof row.mcp_tools === 'string' ? JSON.parse(row.mcp_tools) : null,
    expires_at: row.expires_at ?? null,
    parent_id: row.parent_id ?? null,
  };
}

/** Every scope there was before `annotations:write`: a root key stored with them all is an admin key. */
const ADMIN_BEFORE_ANNOTATIONS = ADMIN_GRANT.scopes.filter((scope) => scope !== 'annotations:write');

/** An admin key minted before a scope existed holds it too: admin means every scope (`isAdminKey`). */
function scopesOf(stored: Scope[], parentId: string | null): Scope[] {
  const admin = parentId === null && ADMIN_BEFORE_ANNOTATIONS.every((scope) => stored.includes(scope));
  return admin ? [...new Set([...stored, ...ADMIN_GRANT.scopes])] : stored;
}

/** Whether a stored row is an admin key: minted by no other key, with every scope (or from before scopes). */
function isAdminRow(row: Pick<LineageRow, 'parent_id' | 'scopes'>): boolean {
  if ((row.parent_id ?? null) !== null) return false;
  return row.scopes === null || scopesOf(JSON.parse(row.scopes), null).length === ADMIN_GRANT.scopes.length;
}

/** The tenant of the key `row` with the chain of keys that minted it, nearest first. */
function tenantOf(row: { id: string }, chain: readonly LineageRow[]): string {
  const root = chain.at(-1);
  return tenantOfKey([row.id, ...chain.map((ancestor) => ancestor.id)], root !== undefined && isAdminRow(root))!;
}

/** The columns of a stored key, in the order `insertValues` gives them. */
export const INSERT_COLUMNS =
  'id, hash, prefix, name, created_at, scopes, allowed_agents, allowed_models, expires_at, parent_id, mcp_tools, ' +
  'sensitive_data, limits';

/** A new key (`sy-` + base64url of 32 random bytes), what is stored of it, and the values to insert. */
export function mintKey(
  name: string | undefined,
  grant: KeyGrant,
  parentId: string | null,
  chain: readonly LineageRow[] = [],
): { key: string; info: ApiKeyInfo; values: Array<string | Buffer | null> } {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = `key_${randomUUID().replaceAll('-', '')}`;
  const info: ApiKeyInfo = {
    id,
    name: name?.trim() || null,
    prefix: key.slice(0, API_KEY_PREFIX.length + DISPLAY_PREFIX_LENGTH),
    created_at: new Date().toISOString(),
    revoked_at: null,
    parent_id: parentId,
    ancestors: chain.map((ancestor) => ancestor.id),
    tenant: tenantOf({ id }, chain),
    ...grant,
    mcp_tools: grant.mcp_tools ?? null,
  };
  if (hasLimits(grant.limits)) info.limits = withoutEmpty(grant.limits);
  else delete info.limits;
  const above = limitsAbove(chain);
  if (Object.keys(above).length > 0) info.ancestor_limits = above;
  const values = [
    info.id,
    hash('sha256', key, 'buffer'),
    info.prefix,
    info.name,
    info.created_at,
    JSON.stringify(grant.scopes),
    grant.allowed_agents && JSON.stringify(grant.allowed_agents),
    grant.allowed_models && JSON.stringify(grant.allowed_models),
    grant.expires_at,
    parentId,
    grant.mcp_tools ? JSON.stringify(grant.mcp_tools) : null,
    grant.sensitive_data ?? null,
    hasLimits(grant.limits) ? JSON.stringify(withoutEmpty(grant.limits)) : null,
  ];
  return { key, info, values };
}

/** `sy-Ab3dEf9h` or `Ab3dEf9h`, as stored. */
export function displayPrefixOf(idOrPrefix: string): string {
  return idOrPrefix.startsWith(API_KEY_PREFIX) ? idOrPrefix : `${API_KEY_PREFIX}${idOrPrefix}`;
}

/** The one key `keys revoke <id|prefix>` names; an error when none or several match. */
export function theOneMatch(matches: ApiKeyInfo[], idOrPrefix: string): ApiKeyInfo {
  if (matches.length === 0) throw new Error(`No API key has the id or prefix "${idOrPrefix}".`);
  if (matches.length > 1)
    throw new Error(
      `Several API keys have the prefix "${idOrPrefix}": revoke by id (${matches.map((key) => key.id).join(', ')}).`,
    );
  return matches[0]!;
}
