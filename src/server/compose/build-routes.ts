import { redactSecrets } from '../../internal/redact.ts';
import type { ClusterWorker } from '../cluster/worker-role.ts';
import { createSwitchyardHandler, type SwitchyardHandler } from '../handler.ts';
import { defaultHostPolicy, pageAccess } from '../host-check.ts';
import { DEFAULT_MAX_CONCURRENT_PER_KEY } from '../key-concurrency.ts';
import type { McpGateway } from '../mcp-gateway/mcp-gateway.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../read-json-body.ts';
import type { ServeOptions } from '../start-server.ts';
import type { ServerCounters } from './open-counters.ts';
import type { ServerEngines } from './open-engines.ts';
import type { ServerGateway } from './open-gateway.ts';
import type { ServerStores } from './open-stores.ts';
import type { ServerLog } from './server-log.ts';

/** What the routes are built over: the opened parts, and the address the server listens on. */
export interface RouteParts extends ServerGateway {
  stores: ServerStores;
  engines: ServerEngines;
  counters: ServerCounters;
  log: ServerLog;
  address: { host: string; port: number };
  mcp: McpGateway | undefined;
  worker: ClusterWorker | undefined;
}

/**
 * Every route of `serve` over the opened parts, with the server's settings: the key limits, the hosts and origins the
 * pages and `/mcp` accept, CORS, the health routes' engines, and where unexpected errors are logged.
 */
export function buildRoutes(options: ServeOptions, parts: RouteParts): SwitchyardHandler {
  const { stores, engines, counters, gateway, log, address } = parts;
  return createSwitchyardHandler({
    gateway,
    keys: stores.keys,
    deployments: stores.deployments,
    mock: (options.mock ?? false) !== false,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxUploadBytes: options.maxUploadBytes,
    publicPage: pageAccess(address.host, options.allowedHosts ?? []).isPublic,
    hostPolicy: defaultHostPolicy(address.host, address.port, {
      hosts: options.allowedHosts ?? [],
      // An origin CORS allows is one the operator trusts: its pages may use `/mcp` too.
      origins: [...(options.allowedOrigins ?? []), ...(options.corsOrigins ?? [])],
    }),
    version: options.version ?? '0.0.0',
    mcp: parts.mcp,
    providers: gateway.configuredProviders(),
    maxConcurrentPerKey: options.maxConcurrentPerKey ?? DEFAULT_MAX_CONCURRENT_PER_KEY,
    requestsPerMinutePerKey: options.requestsPerMinutePerKey,
    keyBudgetRules: parts.keyBudgetRules,
    spendStore: parts.spend,
    redis: engines.redis,
    rateBuckets: counters.buckets,
    inFlightStore: counters.inFlight,
    worker: parts.worker ? { id: parts.worker.id, pid: process.pid } : undefined,
    rateLimitOnStoreError: options.rateLimitOnStoreError,
    engineStates: options.database || options.redis ? () => engines.watch.states() : undefined,
    engineReadiness: () => engines.watch.readiness(),
    onStorageError: (error) => engines.watch.failed(error),
    corsOrigins: options.corsOrigins ?? [],
    metrics: parts.metrics,
    warn: log.warn,
    onUnexpectedError: (error, request) => {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log.error('unexpected error', { method: request.method, path: request.path, error: redactSecrets(detail, []) });
    },
  });
}
