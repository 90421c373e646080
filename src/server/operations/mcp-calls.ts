import type * as Zod from 'zod';
import { isAdminKey } from '../../access/lineage.ts';
import { forbidden, READ_ALL } from '../../access/scopes.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import type { McpCallRecord } from '../mcp-gateway/call-log.ts';
import { defineOperation } from '../operation.ts';

const loadZod = lazyRequire<typeof Zod>('zod');

let input: ReturnType<typeof buildInput> | undefined;
const buildInput = () => {
  const { z } = loadZod();
  return z
    .object({
      server: z.string().min(1).max(100).optional().describe('Only the calls to this upstream MCP server.'),
      limit: z.coerce.number().int().min(1).max(1000).optional().describe('At most this many, newest first (100).'),
    })
    .strict();
};

/**
 * `GET /v1/mcp/calls`, `list_mcp_calls`: the tool calls made through the MCP gateway (key, tool, server, duration,
 * outcome, sizes), newest first. For admin keys: they span every tenant.
 */
export const listMcpCalls = defineOperation({
  name: 'list_mcp_calls',
  description:
    "Lists the tool calls made through this server's MCP gateway (the upstream MCP servers' tools): the key, the " +
    'tool, its server, the duration, the outcome (ok, tool_error, timeout, unavailable, too_large, forbidden…) ' +
    'and the sizes each way, newest first. Admin keys only.',
  scope: READ_ALL,
  input: () => (input ??= buildInput()),
  hints: { readOnlyHint: true },
  async handle({ server, limit }, { access, mcp }): Promise<McpCallRecord[]> {
    if (!isAdminKey(access.key)) throw forbidden('only an admin key reads the MCP gateway’s calls');
    return (await mcp?.callLog.list({ server, limit: limit ?? 100 })) ?? [];
  },
  http: {
    method: 'GET',
    path: /^\/v1\/mcp\/calls$/,
    input: ({ query }) => Object.fromEntries(query),
    reply: (data) => ({ object: 'list', data }),
  },
});
