import type { CallQueryScope } from '../records/call-query.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { ListCallsQuery } from '../records/call-store.ts';
import { mayActAs, requireEveryAgent } from './agents.ts';
import { isAdminKey } from './lineage.ts';
import { forbidden, READ_ALL, READ_OWN, READS_CALLS, requireScope, type Scope } from './scopes.ts';

/**
 * The read rule, the one statement of it: a key reads what it made itself; with `calls:read`, every call of its
 * agents (every call for a key of every agent) made within its tenant, or by anyone for a key minted by no other
 * key (the operator's); with `calls:read:own`, what the keys minted under it made. Calls, their annotations and
 * experiments (read as a call made by the experiment's author for its agent) all follow it.
 */

/** The key as the read rule sees it. */
export interface ReaderKey {
  readonly id: string;
  readonly scopes: readonly Scope[];
  readonly allowed_agents: readonly string[] | null;
  /** The keys that minted it, nearest first: a key minted by another reads within its tenant only. */
  readonly ancestors: readonly string[];
}

/** The keys the read rule may need, each looked up at most once per request. */
export interface ReaderLookups {
  /** The keys minted under the reader, however deep. */
  descendants(): Promise<readonly string[]>;
  /** The keys of the reader's tenant: the key it is named after and every key under it. */
  tenantKeys(): Promise<readonly string[]>;
}

/** Whether `key` reads across tenants with `calls:read`: minted by no other key (the operator's, from the CLI). */
function readsEveryTenant(key: ReaderKey): boolean {
  return key.ancestors.length === 0;
}

/** A recorded thing as the read rule sees it: the agent it ran as, the key that made it (`null`: none). */
export interface Made {
  agent_id: string | null;
  by: string | null | undefined;
}

/** A recorded call as the read rule sees it: its agent, the key it was made with. */
export function madeBy(record: CallRecord): Made {
  return { agent_id: record.agent_id, by: record.metadata?.api_key_id };
}

/** An experiment (or its cell) as the read rule sees it: a call its author made for its agent. */
export function madeByAuthor(owner: { agent_id: string; author: string | null }): Made {
  return { agent_id: owner.agent_id, by: owner.author };
}

/** Whether `key` reads `made` (a call, and so continues it; an experiment). */
export async function mayRead(key: ReaderKey, made: Made, lookups: ReaderLookups): Promise<boolean> {
  if (made.by === key.id) return true;
  if (key.scopes.includes(READ_ALL)) {
    const agent =
      key.allowed_agents === null || (made.agent_id !== null && mayActAs(key.allowed_agents, made.agent_id));
    if (agent && (readsEveryTenant(key) || (made.by != null && (await lookups.tenantKeys()).includes(made.by))))
      return true;
  }
  if (!key.scopes.includes(READ_OWN) || made.by == null) return false;
  return (await lookups.descendants()).includes(made.by);
}

/**
 * Whether `key` changes `made` (an experiment: its versions, inputs and runs), beyond reading it: its author, a key
 * the author was minted under (with `calls:read:own`), or an admin key. A reader of its agent's calls only reads.
 */
export async function mayChange(key: ReaderKey, made: Made, lookups: ReaderLookups): Promise<boolean> {
  if (made.by === key.id || isAdminKey(key)) return true;
  if (!key.scopes.includes(READ_OWN) || made.by == null) return false;
  return (await lookups.descendants()).includes(made.by);
}

/**
 * Whether `key` (with `annotations:write`) may annotate `made`: a key limited to agents, a call or cell of one of
 * them made within its tenant (anyone's, for the operator's keys); a key of every agent, one it reads (its own at
 * least).
 */
export async function mayAnnotate(key: ReaderKey, made: Made, lookups: ReaderLookups): Promise<boolean> {
  if (key.allowed_agents === null) return mayRead(key, made, lookups);
  if (made.agent_id === null || !mayActAs(key.allowed_agents, made.agent_id)) return false;
  if (readsEveryTenant(key) || made.by === key.id) return true;
  return made.by != null && (await lookups.tenantKeys()).includes(made.by);
}

/**
 * What a query over recorded calls (or experiments, or annotations) may see, as a store filters it: everything with
 * an unlimited `calls:read`, its agents' with a limited one, its own and its descendants' with `calls:read:own`. A
 * 403 without either read scope.
 */
export async function readScope(key: ReaderKey, lookups: ReaderLookups): Promise<CallQueryScope> {
  if (key.scopes.includes(READ_ALL)) {
    const agents = key.allowed_agents === null ? {} : { agent_ids: key.allowed_agents };
    return readsEveryTenant(key) ? agents : { ...agents, api_key_ids: await lookups.tenantKeys() };
  }
  requireScope(key, READS_CALLS);
  return { api_key_ids: [key.id, ...(await lookups.descendants())] };
}

/**
 * A page of calls (`GET /v1/calls`) narrowed to what `key` reads: the query, and the keys whose calls it reads as a
 * scope apart (however many keys its tenant has had); a key limited to agents reads one agent's at a time (its only
 * agent by default); otherwise as `readScope`.
 */
export async function readableCallList(
  key: ReaderKey,
  query: ListCallsQuery,
  lookups: ReaderLookups,
): Promise<{ query: ListCallsQuery; scope: CallQueryScope }> {
  const agents = key.allowed_agents;
  const { api_key_ids } = await readScope(key, lookups);
  const scope = api_key_ids ? { api_key_ids } : {};
  if (!key.scopes.includes(READ_ALL) || agents === null) return { query, scope };
  const agentId = query.agent_id ?? (agents.length === 1 ? agents[0] : undefined);
  if (agentId === undefined || !mayActAs(agents, agentId))
    throw forbidden(`this API key reads only the calls of ${agents.join(', ')}: pass agent_id=<one>`);
  return { query: { ...query, agent_id: agentId }, scope: { ...scope, agent_ids: [agentId] } };
}

/**
 * Whether a record is within a reader's scope (as `readScope` makes it): what a page from a store that does not apply
 * the scope itself is checked with, so that such a store fails closed.
 */
export function withinScope(record: CallRecord, scope: CallQueryScope): boolean {
  const key = record.metadata?.api_key_id;
  if (scope.api_key_ids && (key === undefined || !scope.api_key_ids.includes(key))) return false;
  return !scope.agent_ids || (record.agent_id !== null && scope.agent_ids.includes(record.agent_id));
}

/**
 * A 403 unless `key` reads every call: traces, daily costs, agent totals and the page span every agent and every
 * tenant.
 */
export function requireEveryCall(key: ReaderKey): void {
  requireScope(key, READ_ALL);
  requireEveryAgent(
    key.allowed_agents,
    'traces, costs and agent totals',
    ' (use GET /v1/calls?agent_id=<one of them>)',
  );
  requireEveryTenant(key, 'traces, costs and agent totals');
}

/** A 403 unless `key` is minted by no other key: `what` spans every tenant (the metrics' series do too). */
export function requireEveryTenant(key: Pick<ReaderKey, 'ancestors'>, what: string): void {
  if (key.ancestors.length > 0)
    throw forbidden(`${what} span every tenant; this API key reads its own tenant’s calls only`);
}
