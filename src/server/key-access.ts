import type { CallAccess } from '../completion/call-access.ts';
import type { CallQueryScope } from '../records/call-query.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { ListCallsQuery } from '../records/call-store.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import { forbidden, requireScope } from './key-scopes.ts';
import type { KeyStore } from './key-store.ts';
import { HttpError } from './responses.ts';

/**
 * The one place an API key's limits become rules, built once per request by the handler and read by every route,
 * dialect and MCP tool: what a call made with the key may do (`forCall`, which the pipeline applies after a
 * deployment is expanded and for every fallback), which agents' deployments it sees, and which records it reads.
 */
export class KeyAccess {
  readonly key: ApiKeyInfo;
  readonly #keys: KeyStore;
  readonly #limits: KeyLimits | undefined;
  /** The key as the request presented it, for checking it again later. */
  readonly #presented: string | undefined;
  #descendants: Promise<string[]> | undefined;

  constructor(key: ApiKeyInfo, keys: KeyStore, limits?: KeyLimits, presented?: string) {
    this.key = key;
    this.#keys = keys;
    this.#limits = limits;
    this.#presented = presented;
  }

  /** Takes `n` more requests from the key's rate (each message of a JSON-RPC batch counts); a 429 when none is left. */
  async countRequests(n: number): Promise<void> {
    for (let taken = 0; this.#limits && taken < n; taken++) await this.#limits.takeRequest(this.key);
  }

  /**
   * For a call the server makes for this key after its request was answered (an experiment's cells): checks the
   * key (and the keys that minted it) is still valid, a 401 once it is revoked or expired; then waits until the
   * key's rate and its calls in flight allow one more. Resolves to the function that gives the slot back.
   */
  async laterCallSlot(signal?: AbortSignal): Promise<() => void> {
    const limits = this.#limits;
    if (!limits) return () => undefined;
    // Checked again after every wait: a key revoked while its work waits for its rate stops there.
    await untilAllowed(async () => {
      await limits.authenticate(this.#presented);
      await limits.takeRequest(this.key);
    }, signal);
    return untilAllowed(() => limits.acquire(this.key), signal);
  }

  /** The limits a call carries into the pipeline: agents, models, the key's lineage, which records it may read. */
  forCall(): CallAccess {
    return {
      keyId: this.key.id,
      ancestors: this.key.ancestors ?? [],
      tenant: this.key.tenant,
      takeRequest: () => this.countRequests(1),
      agents: this.key.allowed_agents,
      models: this.key.allowed_models,
      mayReadCall: (record) => this.mayRead(record),
    };
  }

  mayUseAgent(agentId: string): boolean {
    return this.key.allowed_agents === null || this.key.allowed_agents.includes(agentId);
  }

  /** Whether any of `names` (a reference as written, its catalog id) is among the key's models. */
  mayUseModel(...names: Array<string | undefined>): boolean {
    const models = this.key.allowed_models;
    return models === null || names.some((name) => name !== undefined && models.includes(name));
  }

  /** A 403 unless the key may act as `agentId` (deployment writes). */
  requireAgent(agentId: string): void {
    if (!this.mayUseAgent(agentId))
      throw forbidden(`this API key acts only as the agents ${this.key.allowed_agents!.join(', ')}, not "${agentId}"`);
  }

  /**
   * Whether the key may read a recorded call (and continue it): a call made with the key itself; with `calls:read`,
   * any call of its agents; with `calls:read:own`, a call made with a key minted under it.
   */
  async mayRead(record: CallRecord): Promise<boolean> {
    const madeWith = record.metadata?.api_key_id;
    if (madeWith === this.key.id) return true;
    if (this.key.scopes.includes('calls:read') && record.agent_id !== null && this.mayUseAgent(record.agent_id))
      return true;
    if (this.key.scopes.includes('calls:read') && this.key.allowed_agents === null) return true;
    if (!this.key.scopes.includes('calls:read:own') || madeWith === undefined) return false;
    return (await this.descendants()).includes(madeWith);
  }

  /**
   * `query` narrowed to what the key reads: every call with an unlimited `calls:read`; one of its agents' with a
   * limited one (the only agent by default); the calls of the key and the keys minted under it with
   * `calls:read:own`. A 403 otherwise.
   */
  async scopeCallQuery(query: ListCallsQuery): Promise<ListCallsQuery> {
    const { key } = this;
    if (key.scopes.includes('calls:read')) {
      if (key.allowed_agents === null) return query;
      const agentId = query.agent_id ?? (key.allowed_agents.length === 1 ? key.allowed_agents[0] : undefined);
      if (agentId === undefined || !this.mayUseAgent(agentId))
        throw forbidden(`this API key reads only the calls of ${key.allowed_agents.join(', ')}: pass agent_id=<one>`);
      return { ...query, agent_id: agentId };
    }
    requireScope(key, 'calls:read:own');
    return { ...query, api_key_ids: [key.id, ...(await this.descendants())] };
  }

  /**
   * The rows a structured call query (`POST /v1/calls/query`, `query_completions`) reads: every call with an
   * unlimited `calls:read`, its agents' with a limited one, its own and its descendants' with `calls:read:own`.
   * A 403 otherwise.
   */
  async callQueryScope(): Promise<CallQueryScope> {
    const { key } = this;
    if (key.scopes.includes('calls:read')) return key.allowed_agents === null ? {} : { agent_ids: key.allowed_agents };
    requireScope(key, 'calls:read:own');
    return { api_key_ids: [key.id, ...(await this.descendants())] };
  }

  /**
   * Whether the key may annotate a recorded call (with `annotations:write`): a key limited to agents, a call of one
   * of them, whoever made it; a key of every agent, a call it may read (`mayRead`: its own at least).
   */
  async mayAnnotate(record: CallRecord): Promise<boolean> {
    if (this.key.allowed_agents !== null) return record.agent_id !== null && this.mayUseAgent(record.agent_id);
    return this.mayRead(record);
  }

  /** One call by id for `GET /v1/calls/{id}` and `get_completion`: a 403 without a read scope, then `mayRead`. */
  async readableCall(record: CallRecord | null): Promise<CallRecord | null> {
    if (!this.key.scopes.includes('calls:read')) requireScope(this.key, 'calls:read:own');
    return record && (await this.mayRead(record)) ? record : null;
  }

  /** A 403 unless the key reads every call: traces, daily costs, agent totals and the page span every agent. */
  requireEveryCall(): void {
    requireScope(this.key, 'calls:read');
    if (this.key.allowed_agents !== null)
      throw forbidden(
        'this API key reads only its own agents\u2019 calls; traces, costs and agent totals span every agent ' +
          '(use GET /v1/calls?agent_id=<one of them>)',
      );
  }

  /** The keys minted under this one, however deep: looked up once per request. */
  descendants(): Promise<string[]> {
    this.#descendants ??= Promise.resolve(this.#keys.descendants(this.key.id));
    return this.#descendants;
  }
}

/** The server's checks of a key beyond its grant (one object per server): its validity, its rate and its slots. */
export interface KeyLimits {
  /** The key's check (a 401 once it, or a key that minted it, is revoked or expired). */
  authenticate(presented: string | undefined): Promise<unknown>;
  /** Takes one request from the rate of the key and its ancestors; a 429 with `retry-after` when none is left. */
  takeRequest(key: ApiKeyInfo): Promise<void>;
  /** One of the key's slots for calls in flight, or a 429; the function returned gives it back. */
  acquire(key: ApiKeyInfo): () => void;
}

/** `attempt` again after each 429's `retry-after` (1 s when it has none), until it passes or `signal` fires. */
async function untilAllowed<T>(attempt: () => T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 429 || signal?.aborted) throw error;
      const seconds = Number(error.headers?.['retry-after'] ?? 1);
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Number.isFinite(seconds) ? seconds : 1) * 1000));
    }
  }
}
