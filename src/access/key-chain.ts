import type { SwitchyardError } from '../errors.ts';
import { forbidden } from './scopes.ts';

/**
 * The rules a key's chain is judged by when it is used or mints: the chain's liveness, a key's and a tenant's caps.
 * Stores read the rows (`server/keys-table.ts`); what they mean is decided here, once.
 */

/** Active keys one key may have minted: an agent handed a key cannot mint without bound. */
export const MAX_ACTIVE_CHILDREN = 100;

/**
 * What a key's liveness depends on: its own row and, through `parent_id`, the rows of the keys that minted it; and
 * its tenant, on whether the root of that chain is an admin key (its scopes).
 */
export interface LineageRow {
  id: string;
  parent_id: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  scopes: string | null;
  /** JSON of the key's own `KeyLimits` (absent or null: none). */
  limits?: string | null | undefined;
}

/**
 * Deepest lineage walked: no key is minted with more ancestors (its parent's chain would be cut short, and a cut
 * chain is refused), so every walk up or down is complete. Bounds the recursion should rows ever form a cycle.
 */
export const MAX_DEPTH = 1000;

/**
 * Why a key cannot be used or mint, judged on its chain (the key first, then each key that minted it): any of them
 * revoked or expired, or the chain cut short (an ancestor missing), which is refused as revoked.
 */
export function lineageRefusal(chain: readonly LineageRow[]): 'revoked' | 'expired' | undefined {
  if (chain.length === 0) return 'revoked';
  for (const [index, row] of chain.entries()) {
    if (row.revoked_at) return 'revoked';
    if ((chain[index + 1]?.id ?? null) !== (row.parent_id ?? null)) return 'revoked';
  }
  const now = Date.now();
  if (chain.some((row) => row.expires_at !== null && Date.parse(row.expires_at) <= now)) return 'expired';
  return undefined;
}

/** The active keys a tenant may hold by default: its root and every key under it. */
export const MAX_KEYS_PER_TENANT = 10_000;

/** Why a tenant holding `held` active keys may not have another: `max` reached. */
export function tenantRefusal(held: number, max: number): SwitchyardError | undefined {
  if (held < max) return undefined;
  return forbidden(`this API key's tenant has ${held} active keys (the limit); revoke some first`);
}

/** Why `chain`'s first key (the caller) may not mint: its lineage, or `children` active keys minted already. */
export function mintRefusal(chain: readonly LineageRow[], children: number): SwitchyardError | undefined {
  const refusal = lineageRefusal(chain);
  if (refusal) return forbidden(`this API key, or a key that minted it, is ${refusal}`);
  if (children >= MAX_ACTIVE_CHILDREN)
    return forbidden(`this API key has already minted ${children} active keys (the limit); revoke some first`);
  return undefined;
}

/** Every key's chain of ancestors (their rows), nearest first, from a full listing. */
export function ancestorsOfAll(rows: readonly LineageRow[]): Map<string, LineageRow[]> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const result = new Map<string, LineageRow[]>();
  for (const row of rows) {
    const ancestors: LineageRow[] = [];
    for (let id = row.parent_id ?? null; id !== null && ancestors.length < MAX_DEPTH; ) {
      // A parent missing from the listing is named all the same, as a key of no scopes.
      const parent = byId.get(id) ?? { id, parent_id: null, revoked_at: null, expires_at: null, scopes: '[]' };
      ancestors.push(parent);
      id = parent.parent_id ?? null;
    }
    result.set(row.id, ancestors);
  }
  return result;
}
