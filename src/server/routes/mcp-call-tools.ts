import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { Gateway } from '../../gateway.ts';
import { callQuerySchemas } from '../../records/call-query-schema.ts';
import type { KeyAccess } from '../key-access.ts';
import { HttpError } from '../responses.ts';
import { queryCalls, readCall } from './call-query.ts';
import { asJson } from './mcp-reply.ts';

const getCompletionInput = z
  .object({ id: z.string().min(1).max(200).describe('The call id: a row id from query_completions.') })
  .strict();

/**
 * The call-record tools of `/mcp`: `query_completions` (the structured query of `POST /v1/calls/query`, the same
 * object as its input) and `get_completion` (one call, as `GET /v1/calls/{id}`), under the same key rules.
 */
export function registerCallTools(server: McpServer, gateway: Gateway, access: KeyAccess): void {
  server.registerTool(
    'query_completions',
    {
      description:
        'Queries the recorded calls (completions) this key may read: filters (agent, workflow, trace, model, ' +
        'provider, status, time, cost, latency, metadata), group_by with count/sum/avg/min/max/p50/p90/p99, ' +
        'order_by and limit. Without group_by or aggregates, one row per call (its columns, not its contents: ' +
        'get_completion has those), newest first.',
      inputSchema: callQuerySchemas().query,
      annotations: { readOnlyHint: true },
    },
    async (query) => asJson(await queryCalls(gateway, query, access)),
  );
  server.registerTool(
    'get_completion',
    {
      description:
        'One recorded call by id, with its messages, output, attempts, usage, cost, latency, metadata and errors. ' +
        'Needs calls:read (its agents) or calls:read:own (its own calls).',
      inputSchema: getCompletionInput,
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      const record = await readCall(gateway, id, access);
      if (!record) throw new HttpError(404, `No call has the id "${id}".`, { code: 'call_not_found' });
      return asJson(record);
    },
  );
}
