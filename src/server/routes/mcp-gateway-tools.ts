import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type * as Zod from 'zod';
import { mcpToolAllowed } from '../../access/mcp-tools.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import { type GatewayTool, type McpCaller, type McpGateway, TOOL_NAME } from '../mcp-gateway/mcp-gateway.ts';

const loadZod = lazyRequire<typeof Zod>('zod');

/**
 * The upstream tools one `/mcp` exchange needs, registered beside the operations' tools: for `tools/list`, every tool
 * the key may call; for `tools/call`, the tools named. Nothing is asked of the upstreams for any other message.
 * A call the key may not make is recorded and left unregistered: the SDK answers that the tool is not found, as for a
 * tool that does not exist.
 */
export async function registerGatewayTools(
  server: McpServer,
  body: unknown,
  gateway: McpGateway,
  key: McpCaller,
): Promise<void> {
  const { listing, called } = toolRequests(body);
  if (!listing && called.length === 0) return;
  const servers = listing ? undefined : new Set(called.flatMap((name) => gateway.locate(name)?.upstream.name ?? []));
  if (servers?.size === 0) return;
  const { tools, unknown } = await gateway.toolsFor(key, servers);
  const offered = new Set(tools.map((tool) => tool.name));
  for (const tool of tools) register(server, gateway, key, tool);
  // Each name once: a batch naming a refused tool many times is one refusal recorded.
  for (const name of new Set(called)) {
    if (offered.has(name)) continue;
    const located = gateway.locate(name);
    if (!located) continue;
    if (!mcpToolAllowed(key, name)) gateway.refused(key, name);
    // A server that cannot say its tools: the call is forwarded all the same, and fails as the server does.
    else if (unknown.includes(located.upstream.name) && TOOL_NAME.test(located.tool))
      register(server, gateway, key, { name, server: located.upstream.name, definition: unlisted(located.tool) });
  }
}

function register(server: McpServer, gateway: McpGateway, key: McpCaller, tool: GatewayTool): void {
  const { definition } = tool;
  const config = {
    ...(definition.title ? { title: definition.title } : {}),
    description: definition.description ?? '',
    inputSchema: inputSchemaOf(definition),
    ...(definition.annotations ? { annotations: definition.annotations } : {}),
  };
  // The schema is an object schema: the SDK has checked `args` is an object.
  try {
    server.registerTool(tool.name, config, (args: unknown, extra: { signal: AbortSignal }) =>
      gateway.call(key, tool.name, args as Record<string, unknown>, extra.signal),
    );
  } catch {
    // A name already registered (a listing that repeats one): the first stands; the rest of /mcp is not failed.
  }
}

/**
 * An upstream's JSON Schema as the SDK lists it: an object schema that accepts any arguments (the upstream checks its
 * own), carrying the upstream's schema as its JSON Schema. One per definition (a refreshed list makes new ones).
 */
const schemas = new WeakMap<Tool, Zod.ZodType>();
function inputSchemaOf(definition: Tool): Zod.ZodType {
  let schema = schemas.get(definition);
  if (!schema) {
    // `id` would enter zod's global registry by that id: left out, with `$id`.
    const { id: _id, $id: _$id, ...json } = definition.inputSchema as Record<string, unknown>;
    schema = loadZod().z.object({}).passthrough().meta(json);
    schemas.set(definition, schema);
  }
  return schema;
}

function unlisted(tool: string): Tool {
  return { name: tool, description: '', inputSchema: { type: 'object' } };
}

/** Whether the JSON-RPC message (or batch) lists tools, and the tools it calls. */
function toolRequests(body: unknown): { listing: boolean; called: string[] } {
  const messages = Array.isArray(body) ? body : [body];
  let listing = false;
  const called: string[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/list') listing = true;
    if (method === 'tools/call' && typeof params?.name === 'string') called.push(params.name);
  }
  return { listing, called };
}
