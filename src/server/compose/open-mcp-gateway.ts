import { McpCallLog } from '../mcp-gateway/call-log.ts';
import { McpGateway } from '../mcp-gateway/mcp-gateway.ts';
import { checkMcpUpstreams } from '../mcp-gateway/upstream-settings.ts';
import type { ServerMetrics } from '../server-metrics.ts';
import type { ServeOptions } from '../start-server.ts';
import type { ServerStores } from './open-stores.ts';
import { messageOf, type ServerLog } from './server-log.ts';
import type { Teardown } from './teardown.ts';

/**
 * The MCP gateway over `mcpServers`, when there are any: their names checked before anything listens (a bad or
 * doubled name stops the start), no upstream asked yet (each connects on first use), its calls recorded in the
 * server's database. Its teardown stores the records still being written, closes every client, and ends the
 * processes it spawned.
 */
export function openMcpGateway(
  options: ServeOptions,
  stores: ServerStores,
  metrics: ServerMetrics | undefined,
  log: ServerLog,
  teardown: Teardown,
): McpGateway | undefined {
  const upstreams = options.mcpServers ?? [];
  if (upstreams.length === 0) return undefined;
  checkMcpUpstreams(upstreams);
  const gateway = new McpGateway(upstreams, {
    callLog: new McpCallLog(stores.database.engine, (error) =>
      log.warn('an MCP tool call could not be recorded', { error: messageOf(error) }),
    ),
    log,
    observe: metrics ? (server, outcome, seconds) => metrics.observeMcpCall(server, outcome, seconds) : undefined,
  });
  return teardown.add('mcp gateway', gateway, (opened) => opened.close());
}
