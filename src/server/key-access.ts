import type { CallAccess } from '../access/call-access.ts';
import type { KeyLimits } from '../access/key-limits.ts';
import { madeBy, mayRead } from '../access/reads.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import { bearerKey } from './authenticate.ts';
import type { KeyStore } from './key-store.ts';
import { HttpError } from './responses.ts';
import { keyDigest } from './valid-keys.ts';

/**
 * An API key's facts for one request, built once by the handler and handed to every route, dialect and operation:
 * the key, its per-request lookups (`descendants`) and its limits beyond the grant (rate, calls in flight). It
 * decides nothing itself: the rules are `src/access/`'s, called with `key` and `descendants`; `forCall` is what the
 * pipeline applies after a deployment is expanded and for every fallback.
 */
export class KeyAccess {
  #key: ApiKeyInfo;
  readonly #keys: KeyStore;
  readonly #limits: KeyChecks | undefined;
  /**
   * For checking the key again later: the request's `Authorization` header until a later call needs it, then only
   * the key's digest (the key itself is not kept through a run of hours).
   */
  #proof: { authorization: string | undefined } | { digest: string | undefined };
  #descendants: Promise<string[]> | undefined;
  #tenantKeys: Promise<string[]> | undefined;

  /** The key as last checked: as the request found it, or as a later call (`laterCallSlot`) found it since. */
  get key(): ApiKeyInfo {
    return this.#key;
  }

  constructor(key: ApiKeyInfo, keys: KeyStore, limits?: KeyChecks, authorization?: string) {
    this.#key = key;
    this.#keys = keys;
    this.#limits = limits;
    this.#proof = { authorization };
  }

  /** Takes `n` more requests from the key's rate (each message of a JSON-RPC batch counts); a 429 when none is left. */
  async countRequests(n: number): Promise<void> {
    for (let taken = 0; this.#limits && taken < n; taken++) await this.#limits.takeRequest(this.key);
  }

  /**
   * `n` more of the key's slots in flight, for work of its request beyond the request itself (the tool calls of a
   * JSON-RPC batch); a 429 when they are not free. Resolves to the function that gives them back, once.
   */
  async moreSlots(n: number): Promise<() => void> {
    const limits = this.#limits;
    if (!limits) return () => undefined;
    const releases: Array<() => void> = [];
    const release = () => {
      for (const each of releases.splice(0)) each();
    };
    try {
      for (let taken = 0; taken < n; taken++) releases.push(await limits.acquire(this.key));
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * For a call the server makes for this key after its request was answered (an experiment's cells): checks the
   * key (and the keys that minted it) is still valid, a 401 once it is revoked or expired, and takes it as it stands
   * now (its limits changed meanwhile: `forCall` then carries the new ones); then waits until the key's rate and its
   * calls in flight allow one more, and checks it again. Resolves to the function that gives the slot back.
   */
  async laterCallSlot(signal?: AbortSignal): Promise<() => void> {
    const limits = this.#limits;
    if (!limits) return () => undefined;
    // Checked again after every wait: a key revoked while its work waits for its rate stops there.
    await untilAllowed(async () => {
      this.#key = await this.#recheck(limits);
      await limits.takeRequest(this.key);
    }, signal);
    const release = await untilAllowed(() => limits.acquire(this.key), signal);
    // And once a slot came: a key revoked while its work waited for one stops there too.
    try {
      this.#key = await this.#recheck(limits);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  #recheck(limits: KeyChecks): Promise<ApiKeyInfo> {
    if ('authorization' in this.#proof) {
      const digest = keyDigest(bearerKey(this.#proof.authorization));
      this.#proof = { digest: 'cacheKey' in digest ? digest.cacheKey : undefined };
    }
    const { digest } = this.#proof;
    if (digest === undefined) throw new HttpError(401, 'This API key can no longer be checked.');
    return limits.recheck(digest);
  }

  /** The limits a call carries into the pipeline: agents, models, the key's lineage, which records it may read. */
  forCall(): CallAccess {
    return {
      keyId: this.key.id,
      ancestors: this.key.ancestors ?? [],
      tenant: this.key.tenant,
      ...(this.#ownLimits() ? { keyLimits: this.#ownLimits() } : {}),
      takeRequest: () => this.countRequests(1),
      sensitiveData: this.key.sensitive_data ?? null,
      agents: this.key.allowed_agents,
      models: this.key.allowed_models,
      mayReadCall: (record) => mayRead(this.key, madeBy(record), this),
    };
  }

  /** The own limits of the key and of the keys that minted it, by id; `undefined` when none sets any. */
  #ownLimits(): Record<string, KeyLimits> | undefined {
    const mine = { ...this.key.ancestor_limits, ...(this.key.limits ? { [this.key.id]: this.key.limits } : {}) };
    return Object.keys(mine).length > 0 ? mine : undefined;
  }

  /** The keys minted under this one, however deep: looked up once per request, for the read rules. */
  readonly descendants = (): Promise<string[]> => {
    this.#descendants ??= Promise.resolve(this.#keys.descendants(this.key.id));
    return this.#descendants;
  };

  /** The keys of this key's tenant (the key it is named after, and every key under it): once per request. */
  readonly tenantKeys = (): Promise<string[]> => {
    const tenant = this.key.tenant;
    if (tenant === this.key.id) return this.descendants().then((under) => [tenant, ...under]);
    this.#tenantKeys ??= Promise.resolve(this.#keys.descendants(tenant)).then((under) => [tenant, ...under]);
    return this.#tenantKeys;
  };
}

/** The server's checks of a key beyond its grant (one object per server): its validity, its rate and its slots. */
export interface KeyChecks {
  /** The key's check by its digest (a 401 once it, or a key that minted it, is revoked or expired). */
  recheck(digest: string): Promise<ApiKeyInfo>;
  /** Takes one request from the rate of the key and its ancestors; a 429 with `retry-after` when none is left. */
  takeRequest(key: ApiKeyInfo): Promise<void>;
  /** One of the key's slots for calls in flight, or a 429; the function returned gives it back. */
  acquire(key: ApiKeyInfo): Promise<() => void>;
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
