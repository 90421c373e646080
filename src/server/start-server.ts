import type { Server } from 'node:http';
import type { DeploymentStore } from '../deployments/store.ts';
import type { Gateway, GatewayOptions } from '../gateway.ts';
import type { ClusterWorker } from './cluster/worker-role.ts';
import { announceStart } from './compose/announce-start.ts';
import { buildRoutes } from './compose/build-routes.ts';
import { listen } from './compose/listen.ts';
import { openCounters } from './compose/open-counters.ts';
import { openEngines } from './compose/open-engines.ts';
import { openGateway } from './compose/open-gateway.ts';
import { openMcpGateway } from './compose/open-mcp-gateway.ts';
import { openServerStores } from './compose/open-stores.ts';
import { closeFailed, openServerLog } from './compose/server-log.ts';
import { Teardown } from './compose/teardown.ts';
import type { OnStoreError } from './key-rate-limit.ts';
import type { KeyStore } from './key-store.ts';
import type { McpUpstreamSettings } from './mcp-gateway/upstream-settings.ts';
import type { ServeCacheSettings } from './open-response-cache.ts';

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
  /** Largest upload (an image to edit, audio to transcribe); default 25 MB. */
  maxUploadBytes?: number | undefined;
  /**
   * Each call record is appended to `<dataDir>/record-journal/` before the answer leaves and replayed by the next
   * start if the process dies before its batch is stored (default `true`; `false` trades that for throughput).
   */
  recordJournal?: boolean;
  /** Time a client has to send a whole request (headers and body), default 60 s. */
  requestTimeoutMs?: number;
  /** On shutdown, how long in-flight requests may take to finish before their connections are cut (default 30 s). */
  drainTimeoutMs?: number;
  /**
   * How long a streamed answer waits for a client that reads none of it (its socket full) before the connection is
   * cut, its call aborted and its slot given back (default 60 s, as nginx's `send_timeout`).
   */
  sendTimeoutMs?: number;
  /** Requests one API key may have in flight at once; more get 429 with `retry-after` (default 64). */
  maxConcurrentPerKey?: number;
  /**
   * Requests one API key may make per minute; more get 429 with `retry-after` (default: no limit). Counted in this
   * process, in Redis with `redis`, in the primary for the workers of `serve --workers`.
   */
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
  /** How long the start retries a `database` that does not answer, as for `redis` (default 30 s; 0: once). */
  databaseWaitMs?: number;
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
  /**
   * Upstream MCP servers whose tools `/mcp` offers as `<name>__<tool>` to the keys whose `mcp_tools` name them
   * (`--config`'s `mcp_servers`, `--mcp-server`).
   */
  mcpServers?: McpUpstreamSettings[] | undefined;
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

/**
 * `switchyard serve`, composed of named parts, each added to one teardown as it opens: the stores, the engines
 * replicas share, the counters, the gateway, the HTTP server and its routes. A start that fails half-way closes what
 * it opened, in reverse order, as `close()` does.
 */
export function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  return startServerAs(options, undefined);
}

/**
 * `startServer`, in a worker of `serve --workers` (`worker`): counting with its primary, binding its own socket on
 * the port, and leaving the start's summary to the primary.
 */
export async function startServerAs(options: ServeOptions, worker: ClusterWorker | undefined): Promise<RunningServer> {
  const log = openServerLog(options.log, worker ? { worker: worker.id } : {});
  const teardown = new Teardown(closeFailed(log));
  teardown.add('log', log, (opened) => opened.end());
  try {
    const stores = await openServerStores(options, log, teardown);
    const engines = await openEngines(options, stores, log, teardown);
    const counters = await openCounters(engines, worker);
    const shared = worker !== undefined || stores.postgres !== undefined;
    const opened = await openGateway(options, { stores, engines, counters, shared }, log, teardown);
    const { gateway } = opened;
    const mcp = openMcpGateway(options, stores, opened.metrics, log, teardown);
    const http = await listen(options, log, teardown, worker);
    http.serve(buildRoutes(options, { ...opened, stores, engines, counters, mcp, log, address: http, worker }));
    // A call's record waits for the turn's batch only when another request could add to it. Calls the server makes
    // on its own (an experiment's background run) count as no request: with none in flight, each is written alone.
    stores.journal?.writeAtOnceWhen(() => http.requestsInFlight <= 1);
    await announceStart(options, { stores, gateway, http, log }, worker);
    const close = () => teardown.close();
    const closeNow = () => {
      http.cutShort();
      return close();
    };
    const { keys, deployments } = stores;
    return {
      url: http.url,
      host: http.host,
      port: http.port,
      gateway,
      keys,
      deployments,
      server: http.server,
      close,
      closeNow,
    };
  } catch (error) {
    await teardown.close();
    throw error;
  }
}
