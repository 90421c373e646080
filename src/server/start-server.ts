import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeploymentStore } from '../deployments/store.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../gateway.ts';
import { claimPrivateFile } from '../internal/private-file.ts';
import { redactSecrets } from '../internal/redact.ts';
import { SqliteSink } from '../records/sinks/sqlite-sink.ts';
import { ApiKeyStore } from './api-keys.ts';
import { bufferedLines } from './buffered-lines.ts';
import { createSwitchyardHandler } from './handler.ts';
import { defaultHostPolicy, pageAccess } from './host-check.ts';
import { DEFAULT_MAX_CONCURRENT_PER_KEY } from './key-concurrency.ts';
import type { OnStoreError } from './key-rate-limit.ts';
import type { KeyStore } from './key-store.ts';
import { createNodeListener } from './node-adapter.ts';
import { databasePath } from './open-database.ts';
import { openDeployments } from './open-deployments.ts';
import { openRecordJournal } from './open-record-journal.ts';
import { openResponseCache, type ServeCacheSettings } from './open-response-cache.ts';
import { DEFAULT_MAX_BODY_BYTES } from './read-json-body.ts';
import { createServerMetrics } from './server-metrics.ts';
import { openSharedEngines, storageErrorOf } from './shared-state.ts';
import { startupSummary } from './startup-summary.ts';

export interface ServeOptions {
  /** Default `127.0.0.1`: loopback only. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Directory of the SQLite file holding keys, deployments and call records (default `.switchyard`). */
  dataDir?: string;
  /** A deployment directory or `http(s)://` URL instead of the SQLite deployment table. */
  deployments?: string;
  /** `true` (or a scripted `MockProvider`): every model is answered by the simulator. */
  mock?: GatewayOptions['mock'];
  /**
   * A `postgres://…` URL: call records (`PostgresSink`), API keys (`PostgresKeyStore`) and, unless `deployments` is
   * given, deployments (`PostgresDeploymentStore`) go to PostgreSQL, shared by every server pointed at it.
   */
  database?: string | undefined;
  /** Provider keys, fallbacks, retry… for the gateway (deployments, records and mock are set by the server). */
  gateway?: Omit<GatewayOptions, 'mock' | 'deployments' | 'records'>;
  maxBodyBytes?: number;
  /**
   * Each call record is appended to `<dataDir>/record-journal/` before the answer leaves and replayed by the next
   * start if the process dies before its batch is stored (default `true`; `false` trades that for throughput).
   */
  recordJournal?: boolean;
  /** Time a client has to send a whole request (headers and body), default 60 s. */
  requestTimeoutMs?: number;
  /** On shutdown, how long in-flight requests may take to finish before their connections are cut (default 30 s). */
  drainTimeoutMs?: number;
  /** Requests one API key may have in flight at once; more get 429 with `retry-after` (default 64). */
  maxConcurrentPerKey?: number;
  /** Requests one API key may make per minute, per process; more get 429 with `retry-after` (default: no limit). */
  requestsPerMinutePerKey?: number;
  /**
   * The request rate limit while Redis cannot be reached: `open` (default) counts in each process meanwhile,
   * `closed` answers 503 `storage_unavailable`. Budgets have their own setting (`gateway.budgets`).
   */
  rateLimitOnStoreError?: OnStoreError;
  /**
   * A `redis://…` URL: rate limits and budgets are counted there, shared by every replica (default: in this
   * process).
   */
  redis?: string | undefined;
  /** How long the start retries an unreachable `redis`, logging each attempt's cause (default 30 s; 0: once). */
  redisWaitMs?: number;
  /** The response cache (`--cache`, `--cache-ttl`): memory, SQLite in the data directory, or `redis`'s Redis. */
  cache?: ServeCacheSettings | undefined;
  /** Browser origins CORS allows (`--cors-origin`); default none, CORS off. */
  corsOrigins?: string[];
  /** More `Host` values (`name:port`) to accept on `/` and `/mcp`; `*` accepts any. */
  allowedHosts?: string[];
  /** More `Origin` values (`https://name`) to accept on `/` and `/mcp`; `*` accepts any. */
  allowedOrigins?: string[];
  /** Receives each log line as an object; default: JSON lines on stderr. */
  log?: (line: Record<string, unknown>) => void;
  /** `GET /metrics` (Prometheus text) for keys with `metrics:read` (`--metrics`); prom-client loads only then. */
  metrics?: boolean;
  version?: string;
}

export interface RunningServer {
  /** `http://host:port`, without `/v1`. */
  url: string;
  host: string;
  port: number;
  gateway: Gateway;
  /** The API keys: the data directory's SQLite file, or PostgreSQL with `database`. */
  keys: KeyStore;
  deployments: DeploymentStore;
  server: Server;
  /** Stops accepting, lets in-flight requests finish, then closes the gateway (flushing records) and the stores. */
  close(): Promise<void>;
  /**
   * Like `close()`, without waiting for in-flight requests: they are aborted at once (and recorded as errors), then
   * the records of every call are written. Cuts short a `close()` already running (a second Ctrl-C).
   */
  closeNow(): Promise<void>;
}

/** `switchyard serve`: one SQLite file, one gateway, the HTTP handler on `node:http`. */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const dataDir = options.dataDir ?? '.switchyard';
  const stderr = options.log ? undefined : bufferedLines(process.stderr);
  const log = options.log ?? stderr!.write;
  const info = (msg: string, fields: object = {}) =>
    log({ time: new Date().toISOString(), level: 'info', msg, ...fields });
  const warn = (msg: string, fields: object = {}) =>
    log({ time: new Date().toISOString(), level: 'warn', msg, ...fields });

  const dbPath = databasePath(dataDir);
  // Before any store opens it: a new file is this user's alone; one others can read is said, not changed.
  const dataFileOpen = claimPrivateFile(dbPath);
  // PostgreSQL and Redis, watched: an outage is a 503 naming the engine, logged once per 10 s, shown by health.
  const engines = await openSharedEngines(options, (level, msg, fields) =>
    (level === 'warn' ? warn : info)(msg, fields),
  );
  const keys: KeyStore = engines.keys ?? new ApiKeyStore(dbPath);
  const opened = await openDeployments(options, dbPath);
  const deployments = opened.store;
  const mock = options.mock ?? false;
  // node:sqlite writes synchronously: record batches of 32 (~0.5 ms each) instead of 200 (2–4 ms) keep a flush
  // from holding up the requests that arrive meanwhile (p99 at one connection).
  // Lost records are loud: a warning the first time, then at most once a minute (the queue's pace), with the counts.
  const catalogId = (name: string) => gateway.catalog.find(name)?.id;
  const metrics = options.metrics ? await createServerMetrics(() => gateway.recordStats, catalogId) : undefined;
  const storage = engines.sink ?? new SqliteSink(dbPath);
  const journal = options.recordJournal === false ? undefined : openRecordJournal(dataDir, storage, { info, warn });
  const records = {
    sinks: [storage, ...(metrics ? [metrics.sink] : [])],
    ...(journal ? { journal } : {}),
    batchSize: 32,
    onError: (error: unknown) => {
      const outage = storageErrorOf(error);
      if (outage) engines.watch.down(outage.component, outage.cause ?? outage);
      const reason = redactSecrets(messageOf(error), []);
      warn('call records could not be stored', { error: reason, records: gateway.recordStats });
    },
    onDropped: () => warn('call records dropped: the record queue is full', { records: gateway.recordStats }),
  };
  const { redis } = engines;
  const budgets =
    options.gateway?.budgets && redis
      ? { ...options.gateway.budgets, store: new (await import('../budgets/redis-counters.ts')).RedisSpendStore(redis) }
      : options.gateway?.budgets;
  const gateway: Gateway = createGateway({
    ...options.gateway,
    ...(budgets ? { budgets } : {}),
    ...(options.cache ? { cache: openResponseCache(options.cache, redis, dataDir) } : {}),
    mock,
    deployments,
    records,
    // Once per model: a deprecated model in use is said in the log, not in every request's line.
    onModelDeprecated: (deprecation) => {
      warn('model deprecated', deprecation);
      options.gateway?.onModelDeprecated?.(deprecation);
    },
  });
  const providers = gateway.configuredProviders();

  const server = createServer({
    requestTimeout: options.requestTimeoutMs ?? 60_000,
    headersTimeout: Math.min(options.requestTimeoutMs ?? 60_000, 30_000),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    engines.watch.close();
    await gateway.close();
    await keys.close();
    redis?.disconnect();
    await opened.close();
    throw error;
  });
  const port = (server.address() as AddressInfo).port;
  // Lines still gathered when the process exits without close() (a second Ctrl-C, process.exit) are written then.
  if (stderr) process.on('exit', stderr.flush);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing = false;
  const pages = pageAccess(host, options.allowedHosts ?? []);
  const handler = createSwitchyardHandler({
    gateway,
    keys,
    deployments,
    mock: mock !== false,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    publicPage: pages.isPublic,
    hostPolicy: defaultHostPolicy(host, port, {
      hosts: options.allowedHosts ?? [],
      // An origin CORS allows is one the operator trusts: its pages may use `/mcp` too.
      origins: [...(options.allowedOrigins ?? []), ...(options.corsOrigins ?? [])],
    }),
    version: options.version ?? '0.0.0',
    providers,
    maxConcurrentPerKey: options.maxConcurrentPerKey ?? DEFAULT_MAX_CONCURRENT_PER_KEY,
    requestsPerMinutePerKey: options.requestsPerMinutePerKey,
    redis,
    rateLimitOnStoreError: options.rateLimitOnStoreError,
    engineStates: options.database || options.redis ? () => engines.watch.states() : undefined,
    engineReadiness: () => engines.watch.readiness(),
    onStorageError: (error) => engines.watch.failed(error),
    corsOrigins: options.corsOrigins ?? [],
    metrics,
    warn,
    onUnexpectedError: (error, request) => {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log({
        time: new Date().toISOString(),
        level: 'error',
        msg: 'unexpected error',
        method: request.method,
        path: request.path,
        error: redactSecrets(detail, []),
      });
    },
  });
  const listener = createNodeListener(handler, {
    origin: url,
    isClosing: () => closing,
    onRequestLogged: (entry) => info('request', entry),
  });
  server.on('request', listener);

  info('listening', { url, data: dbPath, deployments: opened.shown, mock: mock !== false, providers });
  info('configuration', startupSummary(options, dbPath, mock === false ? providers : []));
  if (dataFileOpen) warn('the data file is readable by other users of this machine', dataFileOpen);
  if (mock !== false)
    info('simulator mode (--mock): every model is answered by the mock provider; no provider is called');
  else if (providers.length === 0) {
    warn(
      'no provider has credentials: calls will fail with 503 provider_not_configured until one is set ' +
        '(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …)',
    );
  }
  if (pages.notice) info(pages.notice);
  if ((await keys.activeCount()) === 0)
    info(`no API keys yet: create one with \`switchyard keys create --data ${dataDir}\``);

  let closed: Promise<void> | undefined;
  let stopWaiting: () => void = () => undefined;
  const waitCutShort = new Promise<void>((resolve) => (stopWaiting = resolve));
  const close = () =>
    (closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      const deadline = (milliseconds: number) =>
        new Promise<void>((resolve) => (timer = setTimeout(resolve, milliseconds)));
      await Promise.race([listener.drained(), deadline(drainTimeoutMs), waitCutShort]);
      clearTimeout(timer);
      // Past the deadline: abort what still runs, so each call ends (and is recorded) as an error its client sees,
      // then give those endings a moment to be written before the connections go.
      listener.abortAll('The server is shutting down.');
      await Promise.race([listener.drained(), deadline(2_000)]);
      clearTimeout(timer);
      server.closeAllConnections();
      await stopped;
      engines.watch.close();
      await gateway.close();
      await keys.close();
      await redis?.quit().catch(() => {});
      await opened.close();
      const stats = gateway.recordStats;
      const counts = {
        records_written: stats.written,
        records_dropped: stats.dropped,
        records_failed: stats.failed,
        records_build_failed: stats.build_failed,
      };
      (stats.dropped + stats.failed > 0 ? warn : info)('stopped', counts);
      if (stderr) {
        stderr.flush();
        process.off('exit', stderr.flush);
      }
    })());

  const closeNow = () => {
    stopWaiting();
    return close();
  };

  return { url, host, port, gateway, keys, deployments, server, close, closeNow };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
