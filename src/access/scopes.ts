import { PermissionDeniedError } from '../errors.ts';
import type { SensitiveDataMode } from '../guardrails/mode.ts';
import type { KeyLimits } from './key-limits.ts';

/**
 * What a key may do. `calls:read` reads every agent's records (its agents' for a key limited to agents);
 * `calls:read:own` those made with the key and the keys minted under it; `annotations:write` annotates its agents'
 * calls (end-user feedback). An admin key (the CLI's default) has them all.
 */
export const SCOPES = [
  'chat',
  'models',
  'deployments:read',
  'deployments:write',
  'calls:read',
  'calls:read:own',
  'annotations:write',
  'keys:create',
  'metrics:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The scope that reads every call of the key's agents. */
export const READ_ALL = 'calls:read' satisfies Scope;
/** The scope that reads the calls of the key and of the keys minted under it. */
export const READ_OWN = 'calls:read:own' satisfies Scope;
/** What reading recorded calls (and what they carry: annotations, experiments) needs: either read scope. */
export const READS_CALLS: readonly Scope[] = [READ_ALL, READ_OWN];

/** What a key is granted: scopes, optionally only some agents and models, optionally until a time. */
export interface KeyGrant {
  scopes: Scope[];
  /** `null`: any agent. Otherwise calls must name one of these agents, and own records are theirs. */
  allowed_agents: string[] | null;
  /** `null`: any model. Otherwise `model` must be one of these. */
  allowed_models: string[] | null;
  /** ISO time after which the key is refused; `null`: never. */
  expires_at: string | null;
  /**
   * The upstream MCP servers' tools the key lists and calls at `/mcp` (`mcp-tools.ts`): `search__web`, `github__*`,
   * `*`. Unset or `null`: every tool for an admin key, none for any other.
   */
  mcp_tools?: string[] | null | undefined;
  /**
   * What its calls do with sensitive data: `mask`, `block` or `off`; the strictest of it, the gateway's and the
   * request's applies. A key it mints is at least as strict. Absent or `null`: the gateway's.
   */
  sensitive_data?: SensitiveDataMode | null | undefined;
  /** Its own rate, in-flight and budget limits (`key-limits.ts`); absent or `null`: the server's defaults. */
  limits?: KeyLimits | null | undefined;
}

export const ADMIN_GRANT: KeyGrant = {
  scopes: [...SCOPES],
  allowed_agents: null,
  allowed_models: null,
  expires_at: null,
};

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** What an operation needs of a key: one scope, or any one of several. */
export type ScopeNeed = Scope | readonly Scope[];

/** Whether the scopes meet `need`. */
export function hasScope(grant: { readonly scopes: readonly Scope[] }, need: ScopeNeed): boolean {
  const any = typeof need === 'string' ? [need] : need;
  return any.some((scope) => grant.scopes.includes(scope));
}

/** A 403 when the key's scopes do not meet `need`, naming what it lacks. */
export function requireScope(grant: { readonly scopes: readonly Scope[] }, need: ScopeNeed): void {
  if (hasScope(grant, need)) return;
  const names = (typeof need === 'string' ? [need] : need).map((scope) => `"${scope}"`);
  const wanted = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0];
  throw forbidden(`this API key lacks the scope ${wanted}`);
}

/** How the key rules say no: a 403 in the OpenAI error shape (`permission_error`, `insufficient_permissions`). */
export function forbidden(why: string): PermissionDeniedError {
  return new PermissionDeniedError(`Not allowed: ${why}.`);
}
