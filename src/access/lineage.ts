import { strictestMode } from '../guardrails/mode.ts';
import type { CallAccess } from './call-access.ts';
import { forbidden, type KeyGrant, SCOPES, type Scope } from './scopes.ts';

/**
 * The grant of a key minted by `parent`: what is asked, never wider. Unasked parts are inherited, except
 * `keys:create`, which a child gets only when asked for (a minted key does not mint further by default).
 */
export function childGrant(parent: KeyGrant, asked: Partial<KeyGrant>): KeyGrant {
  const scopes = asked.scopes ?? parent.scopes.filter((scope) => scope !== 'keys:create');
  const wider = scopes.filter((scope) => !parent.scopes.includes(scope));
  if (wider.length > 0) throw forbidden(`a new key cannot have scopes its creator lacks: ${wider.join(', ')}`);
  const allowed_agents = narrower('agents', parent.allowed_agents, asked.allowed_agents);
  const allowed_models = narrower('models', parent.allowed_models, asked.allowed_models);
  const expires_at = earlier(parent.expires_at, asked.expires_at ?? null);
  // Never looser than its creator's: a key handed to an agent cannot turn masking off.
  const sensitive_data = strictestMode(parent.sensitive_data, asked.sensitive_data);
  return {
    scopes: [...new Set(scopes)],
    allowed_agents,
    allowed_models,
    expires_at,
    ...(sensitive_data !== 'off' || asked.sensitive_data ? { sensitive_data } : {}),
  };
}

function narrower(what: string, parent: string[] | null, asked: string[] | null | undefined): string[] | null {
  if (asked === undefined || asked === null) return parent;
  if (parent === null) return [...new Set(asked)];
  const outside = asked.filter((item) => !parent.includes(item));
  if (outside.length > 0) throw forbidden(`a new key cannot reach ${what} its creator cannot: ${outside.join(', ')}`);
  return [...new Set(asked)];
}

function earlier(parent: string | null, asked: string | null): string | null {
  if (parent === null) return asked;
  if (asked === null) return parent;
  return Date.parse(asked) < Date.parse(parent) ? asked : parent;
}

/** A key minted by no other key with every scope: it manages every key of the store. */
export function isAdminKey(key: { readonly ancestors: readonly string[]; readonly scopes: readonly Scope[] }): boolean {
  return key.ancestors.length === 0 && SCOPES.every((scope) => key.scopes.includes(scope));
}

/** The key ids whose key budgets a call counts against: the key's own and each of its ancestors'. */
export function keyLineage(access: CallAccess | undefined): string[] {
  if (!access?.keyId) return [];
  return [access.keyId, ...(access.ancestors ?? [])];
}

/**
 * The tenant of a key, the one definition: `lineage` is the key then each key that minted it, nearest first, and
 * `rootIsAdmin` says whether the last of them is an admin key. A key no other key minted is its own tenant, and so is
 * a key an admin key minted (how an operator makes tenants: `POST /v1/keys` with an admin key); any other key is in
 * the tenant of the key that minted it, so a team's keys stay in the team's tenant and siblings an admin minted
 * never share one. `undefined` for no key.
 */
export function tenantOfKey(lineage: readonly string[], rootIsAdmin: boolean): string | undefined {
  return rootIsAdmin && lineage.length > 1 ? lineage.at(-2) : lineage.at(-1);
}

/**
 * The tenant a call belongs to, for everything kept per tenant (the response cache, trace, workflow and agent
 * budgets, experiment run slots): the one its access names, else its key's by `tenantOfKey` (the lineage's root, as an
 * application that passes `access` has no admin keys). `undefined` for a call without a key.
 */
export function tenantOf(access: CallAccess | undefined): string | undefined {
  return access?.tenant ?? tenantOfKey(keyLineage(access), false);
}

/**
 * `lineage` (a key, then each key that minted it) up to its `tenant`: the keys a call's key budgets and limits count
 * against. The keys above a tenant (the admin key that minted it) are not charged for its calls, so one tenant cannot
 * spend another's budget or rate through the key that made them both.
 */
export function withinTenant(lineage: readonly string[], tenant: string | undefined): string[] {
  const at = tenant === undefined ? -1 : lineage.indexOf(tenant);
  return at < 0 ? [...lineage] : lineage.slice(0, at + 1);
}
