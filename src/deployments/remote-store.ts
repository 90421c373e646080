import { isRetryableStatus } from '../errors.ts';
import { loadZod } from '../internal/load-zod.ts';
import { redactUrlCredentials, urlCredentials } from '../internal/redact.ts';
import { withResponseLimit } from '../internal/response-limit.ts';
import type { Deployment } from './deployment.ts';
import { DeploymentConflictError, DeploymentStoreError, DeploymentValidationError } from './errors.ts';
import { abortedLookup, answerTooLarge, failedRequest, statusFailure, untilAborted } from './remote-failures.ts';
import { type DeploymentStore, filterAndSort, indexById, type LookupOptions } from './store.ts';
import { formatPath, validateDeployment } from './validate-deployment.ts';

export interface RemoteDeploymentStoreOptions {
  /** The service's base URL, such as `https://deployments.example.com` (a trailing `/v1` is accepted too). */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never written into an error message. */
  apiKey: string;
  /** How long an answer is served from the cache before it is revalidated (default 30 s). */
  ttlMs?: number;
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
  /**
   * Largest answer read, in bytes (default 16 MiB); a larger one fails with `DeploymentStoreError`
   * `response_too_large` (or its cached copy is served) and is not read further.
   */
  maxResponseBytes?: number;
  fetch?: typeof globalThis.fetch;
}

/** The default `maxResponseBytes`: a list of many deployments fits, an endless answer does not fill memory. */
const DEFAULT_MAX_DEPLOYMENT_ANSWER_BYTES = 16 * 1024 * 1024;

type Parse = (body: unknown, url: string) => unknown;

interface CacheEntry {
  value: unknown;
  etag: string | undefined;
  /** Until when the value is served without asking the remote. */
  freshUntil: number;
  /** The last revalidation failed, and the value is served anyway. */
  stale: boolean;
}

/** After a failed revalidation, the stale value is served this long (at most) before the remote is asked again. */
const RETRY_AFTER_FAILURE_MS = 5_000;
/** Answers kept at most: keys are ids and agents callers name (a deployment id of their choosing asks its agent). */
export const MAX_CACHED_ANSWERS = 10_000;

/**
 * Deployments kept by a service: `GET {url}/v1/deployments?agent_id=`, `GET`/`PUT {url}/v1/deployments/{id}`.
 * Answers are validated and cached per id and per list query for `ttlMs`; then the next request revalidates
 * (with `If-None-Match` when the service sent an ETag). When the service is unreachable or answers 408/429/5xx,
 * a cached answer is served and `stale` / `lastError` say so; without one, `DeploymentStoreError` is thrown.
 * Credentials in the URL (`https://user:password@…`) are sent as given and written nowhere: `url` and every error
 * show them as `[redacted]`.
 */
export class RemoteDeploymentStore implements DeploymentStore {
  /** The service's base URL as shown in errors: without credentials. */
  readonly url: string;
  readonly ttlMs: number;
  readonly maxResponseBytes: number;
  /** The base URL requests go to, with any credentials it holds. */
  readonly #base: string;
  readonly #secrets: string[];
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inflight = new Map<string, Promise<unknown>>();
  #stale = false;
  #lastError: DeploymentStoreError | DeploymentValidationError | undefined;

  constructor(options: RemoteDeploymentStoreOptions) {
    this.#base = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.url = redactUrlCredentials(this.#base);
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_DEPLOYMENT_ANSWER_BYTES;
    this.#secrets = [options.apiKey, ...urlCredentials(options.url)];
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = withResponseLimit(options.fetch ?? globalThis.fetch, this.maxResponseBytes);
  }

  /** Whether the most recent answer came from the cache because the service could not be asked. */
  get stale(): boolean {
    return this.#stale;
  }

  /** The error of the most recent failed request; cleared by the next successful one. */
  get lastError(): DeploymentStoreError | DeploymentValidationError | undefined {
    return this.#lastError;
  }

  async get(id: string, options: LookupOptions = {}): Promise<Deployment | undefined> {
    await loadZod();
    const parse: Parse = (body, url) => {
      const deployment = validateDeployment(body, url, 502);
      if (deployment.id !== id)
        throw new DeploymentValidationError(
          url,
          [{ path: 'id', message: `expected "${id}", got "${deployment.id}"` }],
          502,
        );
      return deployment;
    };
    const path = `/v1/deployments/${encodeURIComponent(id)}`;
    return (await this.#read(`id:${id}`, path, true, parse, options)) as Deployment | undefined;
  }

  async list(filter: { agent_id?: string } = {}, options: LookupOptions = {}): Promise<Deployment[]> {
    await loadZod();
    const query = filter.agent_id === undefined ? '' : `?agent_id=${encodeURIComponent(filter.agent_id)}`;
    const key = `list:${filter.agent_id ?? ''}`;
    const deployments = (await this.#read(key, `/v1/deployments${query}`, false, parseList, options)) as Deployment[];
    return filterAndSort([...deployments], filter);
  }

  async put(deployment: Deployment): Promise<void> {
    await loadZod();
    const checked = validateDeployment(deployment, 'put', 400);
    const path = `/v1/deployments/${encodeURIComponent(checked.id)}`;
    const url = `${this.url}${path}`;
    const response = await this.#request(path, { method: 'PUT', body: JSON.stringify(checked) }).catch(
      (error: unknown) => {
        throw failedRequest(url, error, this.#secrets, this.maxResponseBytes);
      },
    );
    if (response.status === 409) {
      await response.body?.cancel();
      throw new DeploymentConflictError(checked.id, url);
    }
    if (!response.ok) throw (this.#lastError = await statusFailure(url, response, this.#secrets));
    await response.body?.cancel();
    this.#lastError = undefined;
    for (const key of this.#cache.keys()) if (key.startsWith('list:')) this.#cache.delete(key);
    this.#keep(`id:${checked.id}`, {
      value: checked,
      etag: response.headers.get('etag') ?? undefined,
      freshUntil: Date.now() + this.ttlMs,
      stale: false,
    });
  }

  /**
   * A cached answer while fresh (unless the caller asks for a `fresh` one: revalidated, a 304 when unchanged);
   * otherwise one request per key at a time, which a caller's signal stops waiting for (the request goes on for the
   * others, and fills the cache).
   */
  async #read(
    key: string,
    path: string,
    allowMissing: boolean,
    parse: Parse,
    options: LookupOptions,
  ): Promise<unknown> {
    const { signal } = options;
    if (signal?.aborted) throw abortedLookup(`${this.url}${path}`, signal);
    const entry = this.#cache.get(key);
    if (entry && Date.now() < entry.freshUntil && !options.fresh) {
      this.#stale = entry.stale;
      return entry.value;
    }
    // A fresh read joins no request in flight: that one may have left before the change it must see.
    let pending = options.fresh ? this.#revalidate(key, path, allowMissing, parse, true) : this.#inflight.get(key);
    if (!pending) {
      pending = this.#revalidate(key, path, allowMissing, parse).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    return signal ? untilAborted(pending, signal, () => abortedLookup(`${this.url}${path}`, signal)) : pending;
  }

  /** `fresh`: a failure throws, never serving the cached answer (a write must not be based on it). */
  async #revalidate(key: string, path: string, allowMissing: boolean, parse: Parse, fresh = false): Promise<unknown> {
    const failed = (error: DeploymentStoreError | DeploymentValidationError) =>
      fresh ? this.#failFresh(error) : this.#serveStale(key, error);
    const url = `${this.url}${path}`;
    const entry = this.#cache.get(key);
    let response: Response;
    try {
      response = await this.#request(path, entry?.etag ? { headers: { 'if-none-match': entry.etag } } : {});
    } catch (error) {
      return failed(failedRequest(url, error, this.#secrets, this.maxResponseBytes));
    }
    if (response.status === 304 && entry) return this.#fresh(key, entry);
    if (response.status === 404 && allowMissing) {
      await response.body?.cancel();
      this.#cache.delete(key);
      return this.#succeeded(undefined);
    }
    if (!response.ok) {
      const error = await statusFailure(url, response, this.#secrets);
      if (isRetryableStatus(response.status)) return failed(error);
      this.#stale = false;
      throw (this.#lastError = error);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      const tooLarge = answerTooLarge(url, error, this.maxResponseBytes);
      const notJson = new DeploymentValidationError(url, [{ path: '', message: 'the answer is not JSON' }], 502);
      return failed(tooLarge ?? notJson);
    }
    let value: unknown;
    try {
      value = parse(body, url);
    } catch (error) {
      if (!(error instanceof DeploymentValidationError || error instanceof DeploymentStoreError)) throw error;
      return failed(error);
    }
    return this.#fresh(key, { value, etag: response.headers.get('etag') ?? undefined, freshUntil: 0, stale: false });
  }

  #fresh(key: string, entry: CacheEntry): unknown {
    this.#keep(key, { ...entry, freshUntil: Date.now() + this.ttlMs, stale: false });
    return this.#succeeded(entry.value);
  }

  /** Caches the answer as the newest; past `MAX_CACHED_ANSWERS` the one refreshed longest ago goes. */
  #keep(key: string, entry: CacheEntry): void {
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    if (this.#cache.size > MAX_CACHED_ANSWERS) this.#cache.delete(this.#cache.keys().next().value!);
  }

  #succeeded(value: unknown): unknown {
    this.#stale = false;
    this.#lastError = undefined;
    return value;
  }

  /** A fresh read's failure: thrown, never served from the cache (what is stale is not its answer's to say). */
  #failFresh(error: DeploymentStoreError | DeploymentValidationError): never {
    this.#lastError = error;
    throw error;
  }

  /** Serves the cached value after a failure, asking again only after a short pause; throws without one. */
  #serveStale(key: string, error: DeploymentStoreError | DeploymentValidationError): unknown {
    this.#lastError = error;
    const entry = this.#cache.get(key);
    if (!entry) {
      this.#stale = false;
      throw error;
    }
    entry.freshUntil = Date.now() + Math.min(this.ttlMs, RETRY_AFTER_FAILURE_MS);
    entry.stale = true;
    this.#stale = true;
    return entry.value;
  }

  #request(
    path: string,
    init: { method?: string; body?: string; headers?: Record<string, string> },
  ): Promise<Response> {
    return this.#fetch(`${this.#base}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${this.#apiKey}`,
        accept: 'application/json',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
  }
}

/** `{ object: "list", data: Deployment[] }`, each entry validated, ids unique. */
function parseList(body: unknown, url: string): Deployment[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    throw new DeploymentValidationError(
      url,
      [{ path: 'data', message: 'expected { "object": "list", "data": [ … ] }' }],
      502,
    );
  }
  const entries = data.map((item, index) => {
    try {
      return { deployment: validateDeployment(item, url, 502), source: `${url} data[${index}]` };
    } catch (error) {
      if (!(error instanceof DeploymentValidationError)) throw error;
      const prefix = formatPath(['data', index]);
      const within = (path: string) =>
        !path ? prefix : path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
      throw new DeploymentValidationError(
        url,
        error.issues.map((issue) => ({ ...issue, path: within(issue.path) })),
        502,
      );
    }
  });
  return [...indexById(entries, url).values()].map((entry) => entry.deployment);
}
