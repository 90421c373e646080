import { PermissionDeniedError } from '../errors.ts';
import type { CallRecord } from '../records/call-record.ts';

/**
 * What the caller of one call may do: the limits of a `switchyard serve` API key (or any limits an embedding
 * application sets). The pipeline applies them itself, after a deployment has been expanded and for every
 * candidate, so no dialect, route or fallback can step around them.
 */
export interface CallAccess {
  /** The API key's id (never the key): attributes the call in its record and its key budgets. */
  keyId?: string;
  /** The keys that minted `keyId`, nearest first: their key budgets and limits count this call too. */
  ancestors?: readonly string[];
  /**
   * The tenant the call belongs to (`tenantOf`): the response cache it reads and writes, the namespace of its trace
   * and workflow budgets. `switchyard serve` sets the key's (`tenantOfKey`); absent, the root of the key's lineage.
   */
  tenant?: string;
  /**
   * Takes one more request from the caller's request rate, for a request the call sends beside its first (a hedge);
   * rejects when none is left, and the call goes on without it. Absent: no rate to count against.
   */
  takeRequest?(): Promise<void>;
  /** `null` or absent: any agent. Otherwise the call must run as one of these agents. */
  agents?: readonly string[] | null;
  /** `null` or absent: any model. Otherwise every model tried (fallbacks too) must be one of these. */
  models?: readonly string[] | null;
  /**
   * Whether this caller may read a recorded call (and so continue it with `previous_response_id`). Absent: only
   * the calls made with `keyId`.
   */
  mayReadCall?(record: CallRecord): boolean | Promise<boolean>;
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
 * The tenant a call belongs to, for everything kept per tenant (the response cache, trace and workflow budgets,
 * experiment run slots): the one its access names, else its key's by `tenantOfKey` (the lineage's root, as an
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

/**
 * The agent a call runs as: the one it names, else a caller limited to exactly one agent runs as that one; a 403
 * when it is not among the caller's (or none is named and the caller has several).
 */
export function actingAgent(access: CallAccess | undefined, named: string | undefined): string | undefined {
  const agentId = named ?? (access?.agents?.length === 1 ? access.agents[0] : undefined);
  requireAgent(access, agentId);
  return agentId;
}

/** Throws a 403 when the call runs as an agent the caller may not act as (or as none, when it is limited). */
export function requireAgent(access: CallAccess | undefined, agentId: string | undefined): void {
  const agents = access?.agents;
  if (!agents) return;
  if (agentId !== undefined && agents.includes(agentId)) return;
  throw new PermissionDeniedError(
    agentId === undefined
      ? `This API key may call only as the agents ${agents.join(', ')}: name one (metadata.agent_id or the ` +
          'x-switchyard-agent-id header).'
      : `This API key may not call as the agent "${agentId}"; it may call only as ${agents.join(', ')}.`,
  );
}

/**
 * Whether the caller may use a model: an allowed name that is the model as written, names the same catalog model
 * (an alias or synonym of it: a key for `gpt-4o-mini` may call `gpt-4o-mini-2024-07-18`), or is its
 * `<provider>/<model>` form.
 */
export function modelAllowed(
  access: CallAccess | undefined,
  catalog: { find(name: string): { id: string } | undefined } | undefined,
  modelId: string,
  ...written: Array<string | undefined>
): boolean {
  const models = access?.models;
  if (!models) return true;
  return models.some(
    (allowed) => allowed === modelId || written.includes(allowed) || catalog?.find(allowed)?.id === modelId,
  );
}

/** Whether the caller may read `record`: its own predicate, else the record was made with the caller's key. */
export async function mayReadCall(access: CallAccess | undefined, record: CallRecord): Promise<boolean> {
  if (!access) return true;
  if (access.mayReadCall) return access.mayReadCall(record);
  return access.keyId !== undefined && record.metadata?.api_key_id === access.keyId;
}
