import type { Redis } from 'ioredis';
import { requireScope } from '../access/scopes.ts';
import type { BudgetRule } from '../budgets/budget-slots.ts';
import type { SpendStore } from '../budgets/spend-store.ts';
import type { TokenBuckets } from '../budgets/token-buckets.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import { type StorageUnavailableError, SwitchyardError } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import { authenticate, reauthenticate } from './authenticate.ts';
import { BackgroundRuns } from './background-runs.ts';
import { CorsPolicy } from './cors.ts';
import type { Reply, ServerRequest } from './exchange.ts';
import { assertAllowedHost, type HostPolicy, isDirectLocalRequest } from './host-check.ts';
import { KeyAccess, type KeyChecks } from './key-access.ts';
import type { OnStoreError } from './key-rate-limit.ts';
import type { KeyStore } from './key-store.ts';
import type { McpGateway } from './mcp-gateway/mcp-gateway.ts';
import { REPLY_SENT, type SentReply } from './node-adapter.ts';
import { openKeyLimiter } from './open-key-limiter.ts';
import type { OperationServices } from './operation.ts';
import { operationRoutes } from './operation-routes.ts';
import { OPERATIONS } from './operations/index.ts';
import { DEFAULT_MAX_BODY_BYTES } from './read-json-body.ts';
import { errorResponse } from './responses.ts';
import { errorBodyForPath, findRoute, type Route } from './router.ts';
import { callRoutes } from './routes/calls.ts';
import { codexModelRoutes } from './routes/codex-models.ts';
import { completionRoutes } from './routes/completions.ts';
import { deploymentRoutes } from './routes/deployments.ts';
import { embeddingRoutes } from './routes/embeddings.ts';
import { experimentPageRoutes } from './routes/experiment-page.ts';
import { experimentRoutes } from './routes/experiments.ts';
import { type HealthOptions, healthRoutes } from './routes/health.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { DEFAULT_MAX_UPLOAD_BYTES, mediaRoutes } from './routes/media.ts';
import { messageRoutes } from './routes/messages.ts';
import { modelRoutes } from './routes/models.ts';
import { responseRoutes } from './routes/responses.ts';
import { workflowPageRoutes } from './routes/workflow-page.ts';
import type { ServerMetrics } from './server-metrics.ts';
import { storageErrorOf } from './shared-state.ts';
import { fromWebRequest, toWebResponse } from './web-adapter.ts';

export interface SwitchyardHandlerOptions {
  gateway: Gateway;
  keys: KeyStore;
  /** The store behind `/v1/deployments/{id}` (give the gateway the same one); without it those routes answer 501. */
  deployments?: DeploymentStore | undefined;
  /** Whether the gateway is the simulator: every response then carries `x-switchyard-mock: true`. */
  mock?: boolean;
  /** Largest request body accepted (default 4 MB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Largest upload (an image to edit, audio to transcribe) accepted (default 25 MB); larger ones get 413. */
  maxUploadBytes?: number | undefined;
  /**
   * Serve the pages (`/`, `/experiments`) without a key to requests straight from this machine (loopback peer, no
   * proxy's forwarding header): only safe when the server listens on loopback and is not reached through a proxy.
   */
  publicPage?: boolean;
  /** Accepted `Host` and `Origin` values for `/` and `/mcp` (DNS-rebinding protection). */
  hostPolicy: HostPolicy;
  /** Reported in the MCP server info and by `GET /v1/health`. */
  version?: string;
  /** The upstream MCP servers whose tools `/mcp` offers beside the operations' (`serve`'s `mcp_servers`). */
  mcp?: McpGateway | undefined;
  /** Providers with credentials, for `GET /v1/health` (`startServer` works them out from the gateway options). */
  providers?: readonly string[];
  /** Requests one API key may have in flight at once; more get 429 (default 64). */
  maxConcurrentPerKey?: number;
  /** Requests one API key may make per minute; more get 429 with `retry-after` (default: no limit). */
  requestsPerMinutePerKey?: number | undefined;
  /**
   * The gateway's `key` budget rules (dollars per window, tokens a minute): the defaults of keys without their own,
   * shown with what each key used by `GET /v1/keys`.
   */
  keyBudgetRules?: readonly BudgetRule[] | undefined;
  /** Where the gateway counts budgets: keys' own in-flight limits are held there, and their usage read from it. */
  spendStore?: SpendStore | undefined;
  /** Where the rate limits are counted when replicas share them; default this process. */
  redis?: Redis | undefined;
  /**
   * Where the rate limits are counted when processes share them, in place of `redis`: the primary of
   * `serve --workers` for its workers.
   */
  rateBuckets?: TokenBuckets | undefined;
  /** Where each key's requests in flight are counted when processes share them (`serve --workers`); default here. */
  inFlightStore?: SpendStore | undefined;
  /**
   * The worker of `serve --workers` this process is (its number and process id): said by `GET /v1/health`, and by
   * each answer's `x-switchyard-worker` header (its number).
   */
  worker?: { id: number; pid: number } | undefined;
  /** The rate limit while Redis fails: `open` (default) counts in this process meanwhile, `closed` answers 503. */
  rateLimitOnStoreError?: OnStoreError | undefined;
  /** Each engine's state for `GET /v1/health` (`{ postgres: 'down', redis: 'ok' }`); absent: no shared engine. */
  engineStates?: (() => Promise<Record<string, 'ok' | 'down'>>) | undefined;
  /** Each engine's state and probe time for `GET /v1/health/ready`; absent: no shared engine. */
  engineReadiness?: HealthOptions['readiness'];
  /**
   * A shared engine failed (PostgreSQL, Redis): the request is answered 503 `storage_unavailable`, naming it. Called
   * once per failure: count them and log once in a while, never a stack per request.
   */
  onStorageError?: (error: StorageUnavailableError) => void;
  /** Browser origins allowed by CORS (default none: CORS off). */
  corsOrigins?: readonly string[];
  /** `GET /metrics`, and each request counted by route and status (`startServer({ metrics: true })`). */
  metrics?: ServerMetrics | undefined;
  /** A warning for the log: an experiment run started in the background that failed. */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
  /** Errors that are not `SwitchyardError`s: bugs or outages, answered with a generic 500. */
  onUnexpectedError?: (error: unknown, request: { method: string; path: string }) => void;
}

/**
 * The whole server as a function from a Web `Request` to a `Response` (in-process tests, other runtimes), whose
 * `handle` answers the runtime-neutral `ServerRequest` that `createNodeListener` builds straight from `node:http`.
 */
export type SwitchyardHandler = ((request: Request) => Promise<Response>) & {
  handle(request: ServerRequest): Promise<Reply>;
};

/** Every route is a thin call into the gateway or a store; errors become OpenAI-shaped answers here. */
export function createSwitchyardHandler(options: SwitchyardHandlerOptions): SwitchyardHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { gateway, keys } = options;
  const limiter = openKeyLimiter(options);
  // For work the server goes on with after answering (experiment cells): the same checks, made again per call.
  const keyLimits: KeyChecks = {
    recheck: (digest) => reauthenticate(digest, keys),
    takeRequest: (key) => limiter.takeRequest(key),
    acquire: (key) => limiter.acquire(key),
  };
  const cors = new CorsPolicy(options.corsOrigins ?? []);
  const runs = new BackgroundRuns((error, experimentId) =>
    options.warn?.('experiment run failed', {
      experiment_id: experimentId,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  const services: OperationServices = {
    gateway,
    keys,
    deployments: options.deployments,
    runs,
    mcp: options.mcp,
    limiter,
  };
  const routes: Route[] = [
    ...completionRoutes(gateway, maxBodyBytes),
    ...messageRoutes(gateway, maxBodyBytes),
    ...embeddingRoutes(gateway, maxBodyBytes),
    ...mediaRoutes(gateway, { maxBodyBytes, maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES }),
    ...responseRoutes(gateway, maxBodyBytes),
    ...modelRoutes(gateway),
    ...codexModelRoutes(gateway),
    ...deploymentRoutes(gateway, options.deployments, maxBodyBytes),
    ...callRoutes(gateway),
    // Each operation declared once (`operations/index.ts`): its route here, its tool on /mcp.
    ...operationRoutes(OPERATIONS, services, maxBodyBytes),
    ...experimentRoutes(gateway, runs, maxBodyBytes),
    ...mcpRoutes(services, maxBodyBytes, options.version ?? '0.0.0'),
    ...workflowPageRoutes(gateway, options.mock ?? false),
    ...experimentPageRoutes(gateway, options.mock ?? false),
    ...healthRoutes(gateway, {
      version: options.version ?? '0.0.0',
      providers: options.providers ?? [],
      engines: options.engineStates,
      readiness: options.engineReadiness,
      worker: options.worker,
    }),
    ...(options.metrics?.routes ?? []),
  ];

  const handle = async (request: ServerRequest): Promise<Reply> => {
    let reply: Reply;
    let release: (() => void) | undefined;
    let errorBody: Route['errorBody'];
    let matched: Route | null = null;
    const preflight = cors.preflight(request);
    if (preflight) return preflight;
    try {
      const { route, params } = findRoute(routes, request.method, request.path);
      errorBody = route.errorBody;
      matched = route;
      if (route.checkHost) assertAllowedHost(request, options.hostPolicy);
      let key: ApiKeyInfo | undefined;
      // Anthropic's SDKs send the key as `x-api-key`; every route takes either.
      const presented = request.header('authorization') ?? bearer(request.header('x-api-key'));
      const publicPage = route.auth === 'page' && options.publicPage === true && isDirectLocalRequest(request);
      if (route.auth === 'key' || (route.auth === 'page' && !publicPage)) {
        key = await authenticate(presented, keys);
        if (route.scope) requireScope(key, route.scope);
        // A page asked with a key counts as an API request does. A key minted under others counts against their
        // limits too (up to its tenant): a child cannot widen its parent's rate, and a tenant cannot spend the admin
        // key's, shared with every other tenant.
        await limiter.takeRequest(key);
        release = await limiter.acquire(key);
      }
      const access = key && new KeyAccess(key, keys, keyLimits, presented);
      reply = await route.handle({ request, params, key, access });
    } catch (thrown) {
      // An engine's outage, even as a raw error of its client: a 503 naming it, counted, never a stack per request.
      const storage = storageErrorOf(thrown);
      if (storage) options.onStorageError?.(storage);
      const error = storage ?? thrown;
      if (!(error instanceof SwitchyardError)) options.onUnexpectedError?.(error, request);
      // No route taken (a 404 or 405): the error in the shape of the API whose path it is.
      if (!matched) errorBody = errorBodyForPath(routes, request.path);
      reply = errorResponse(error, errorBody);
    }
    options.metrics?.observe(matched, reply.status);
    // Bodiless first: a HEAD of a streamed answer is sent whole, and its slot given back then (a slot tied to a
    // stream's end would never come back: 64 HEADs locked a key out).
    if (request.method === 'HEAD') reply = withoutBody(reply);
    if (release) reply = releasedWhenSent(reply, release, request.signal);
    if (options.mock) reply.headers['x-switchyard-mock'] = 'true';
    if (options.worker) reply.headers['x-switchyard-worker'] = String(options.worker.id);
    return cors.apply(request, reply);
  };
  return Object.assign(
    async (request: Request) => toWebResponse(releasedByWeb(await handle(fromWebRequest(request)))),
    { handle },
  );
}

/**
 * The reply, with the key's slot given back once it is sent: now for a complete body, at the end of a stream (or
 * when its reader stops: the node adapter calls `REPLY_SENT` after its loop, no generator wraps the body only for
 * that), or when the client goes away before the stream was read at all.
 */
function releasedWhenSent(reply: Reply, release: () => void, signal: AbortSignal): SentReply {
  const { body } = reply;
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    release();
    return reply;
  }
  signal.addEventListener('abort', release, { once: true });
  return { ...reply, [REPLY_SENT]: release };
}

/** For the Web `Response` path, whose streaming is not ours: the slot given back when the body's iteration ends. */
function releasedByWeb(reply: SentReply): Reply {
  const release = reply[REPLY_SENT];
  const { body } = reply;
  if (!release || body === null || typeof body === 'string' || body instanceof Uint8Array) return reply;
  return { ...reply, body: releasing(body, release) };
}

async function* releasing<T>(body: AsyncIterable<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* body;
  } finally {
    release();
  }
}

/** A HEAD answer: the GET's status and headers (with the length the body would have), no body. */
function withoutBody(reply: Reply): Reply {
  const { body } = reply;
  if (typeof body === 'string') reply.headers['content-length'] = String(Buffer.byteLength(body));
  else if (body instanceof Uint8Array) reply.headers['content-length'] = String(body.byteLength);
  else if (body !== null) void body[Symbol.asyncIterator]().return?.();
  return { ...reply, body: null };
}

function bearer(key: string | undefined): string | undefined {
  return key === undefined ? undefined : `Bearer ${key}`;
}
