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
export { startServer, type ServeOptions, type RunningServer } from './start-server.ts';
export { createSwitchyardHandler, type SwitchyardHandler, type SwitchyardHandlerOptions } from './handler.ts';
export { createNodeListener, type NodeListenerOptions, type RequestLogEntry } from './node-adapter.ts';
export type { Reply, ServerRequest } from './exchange.ts';
export { ApiKeyStore, API_KEY_PREFIX, type ApiKeyInfo, type ApiKeyCheck } from './api-keys.ts';
export { defaultHostPolicy, type HostPolicy } from './host-check.ts';
export { databasePath } from './open-database.ts';
export { SqliteDeploymentStore } from '../deployments/sqlite-store.ts';
