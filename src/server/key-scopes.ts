import { HttpError } from './responses.ts';

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

/** What a key is granted: scopes, optionally only some agents and models, optionally until a time. */
export interface KeyGrant {
  scopes: Scope[];
  /** `null`: any agent. Otherwise calls must name one of these agents, and own records are theirs. */
  allowed_agents: string[] | null;
  /** `null`: any model. Otherwise `model` must be one of these. */
  allowed_models: string[] | null;
  /** ISO time after which the key is refused; `null`: never. */
  expires_at: string | null;
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
  return { scopes: [...new Set(scopes)], allowed_agents, allowed_models, expires_at };
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

/** A 403 in the OpenAI error shape when the key lacks `scope`. */
export function requireScope(grant: KeyGrant, scope: Scope): void {
  if (!grant.scopes.includes(scope)) throw forbidden(`this API key lacks the scope "${scope}"`);
}

export function forbidden(why: string): HttpError {
  return new HttpError(403, `Not allowed: ${why}.`, { type: 'permission_error', code: 'insufficient_permissions' });
}
