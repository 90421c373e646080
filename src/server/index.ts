/**
 * `switchyard serve` as a library: the HTTP API, MCP tools and workflow page over a gateway.
 *
 * ```ts
 * const server = await startServer({ port: 8787, dataDir: '.switchyard', mock: true });
 * // … later
 * await server.close();
 * ```
 * @module
 */

// The types of what serve's options take and its keys carry: named here so that a consumer's declarations can name
// them too (a type reachable only through a shared chunk of the build fails a consumer's emit with TS2742).
export type { KeyLimits } from '../access/key-limits.ts';
export type { SlotCharge, SlotHold, SlotRefusal, SpendStore } from '../budgets/spend-store.ts';
export type { TokenBuckets } from '../budgets/token-buckets.ts';
export { SqliteDeploymentStore } from '../deployments/sqlite-store.ts';
export { API_KEY_PREFIX, type ApiKeyCheck, type ApiKeyInfo, ApiKeyStore } from './api-keys.ts';
export type { Reply, ServerRequest } from './exchange.ts';
export { createSwitchyardHandler, type SwitchyardHandler, type SwitchyardHandlerOptions } from './handler.ts';
export { defaultHostPolicy, type HostPolicy } from './host-check.ts';
export type { McpUpstreamSettings } from './mcp-gateway/upstream-settings.ts';
export { createNodeListener, type NodeListenerOptions, type RequestLogEntry } from './node-adapter.ts';
export { databasePath } from './open-database.ts';
export { type RunningServer, type ServeOptions, startServer } from './start-server.ts';
