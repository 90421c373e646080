import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as streamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import * as z from 'zod';
import type { Gateway } from '../../gateway.ts';
import { type Reply, replyFromResponse, type ServerRequest } from '../exchange.ts';
import type { KeyAccess } from '../key-access.ts';
import { childGrant, requireScope, SCOPES } from '../key-scopes.ts';
import type { KeyStore } from '../key-store.ts';

const listModelsInput = z
  .object({
    reasoning: z.boolean().optional().describe('true: only models that support reasoning. Omit for every model.'),
  })
  .strict();
const listDeploymentsInput = z
  .object({ agent_id: z.string().min(1).describe('The agent whose deployments to list, such as "support".') })
  .strict();
const createApiKeyInput = z
  .object({
    name: z.string().max(200).optional().describe('A label to recognise the key by in `switchyard keys list`.'),
    scopes: z
      .array(z.enum(SCOPES))
      .max(SCOPES.length)
      .optional()
      .describe("The new key's scopes, among the caller's own. Omit for the caller's, without keys:create."),
    allowed_agents: z
      .array(z.string().min(1).max(200))
      .max(100)
      .optional()
      .describe("Agents the new key may call as (and read the calls of); within the caller's. Omit for the caller's."),
    allowed_models: z
      .array(z.string().min(1).max(200))
      .max(100)
      .optional()
      .describe("Models the new key may call; within the caller's. Omit for the caller's."),
    expires_in_seconds: z
      .number()
      .int()
      .min(60)
      .max(366 * 86_400)
      .optional()
      .describe("Seconds until the new key expires; never after the caller's own expiry."),
  })
  .strict();

/** One stateless MCP exchange: a server and a transport per request, answering in JSON. */
export async function answerMcp(
  request: ServerRequest,
  body: unknown,
  gateway: Gateway,
  keys: KeyStore,
  access: KeyAccess,
  version: string,
): Promise<Reply> {
  // No sessionIdGenerator: stateless.
  const server = buildServer(gateway, keys, access, version);
  const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  try {
    await server.connect(transport);
    // The body was read (and bounded) by the route; the transport takes it parsed.
    const web = request.toWeb();
    const headers = new Headers(web.headers);
    const bodiless = new Request(web.url, { method: web.method, headers, signal: web.signal });
    return replyFromResponse(await transport.handleRequest(bodiless, { parsedBody: body }));
  } finally {
    // JSON mode: the response is complete once handleRequest resolves.
    await server.close();
  }
}

function buildServer(gateway: Gateway, keys: KeyStore, access: KeyAccess, version: string): McpServer {
  const caller = access.key;
  const server = new McpServer({ name: 'switchyard', version });
  server.registerTool(
    'list_models',
    {
      description:
        'Lists the model catalog: id, USD price per 1M input and output tokens, context window, release date, ' +
        'reasoning support.',
      inputSchema: listModelsInput,
      annotations: { readOnlyHint: true },
    },
    async ({ reasoning }) => {
      const rows = gateway.listModels({ reasoning: reasoning ?? false }).data.map((model) => ({
        id: model.id,
        price_in: model.pricing?.input ?? null,
        price_out: model.pricing?.output ?? null,
        context_window: model.context_window,
        release_date: model.release_date,
        reasoning: model.supports.reasoning,
      }));
      return asJson(rows);
    },
  );
  server.registerTool(
    'list_deployments',
    {
      description:
        'Lists the stored deployments (agent versions, called as model "switchyard/deployment/<id>") of one agent, ' +
        'newest first.',
      inputSchema: listDeploymentsInput,
      annotations: { readOnlyHint: true },
    },
    async ({ agent_id }) => {
      requireScope(caller, 'deployments:read');
      // Another agent's deployments are not there for a limited key, as on GET /v1/deployments.
      return asJson(access.mayUseAgent(agent_id) ? await gateway.listDeployments({ agent_id }) : []);
    },
  );
  server.registerTool(
    'create_api_key',
    {
      description:
        'Creates an API key for this server, a child of the calling key: never wider than it (scopes, agents, ' +
        'models, expiry), revoked with it. Needs the keys:create scope. The key is shown once, in this answer.',
      inputSchema: createApiKeyInput,
    },
    async ({ name, scopes, allowed_agents, allowed_models, expires_in_seconds }) => {
      requireScope(caller, 'keys:create');
      const grant = childGrant(caller, {
        ...(scopes ? { scopes } : {}),
        ...(allowed_agents ? { allowed_agents } : {}),
        ...(allowed_models ? { allowed_models } : {}),
        ...(expires_in_seconds ? { expires_at: new Date(Date.now() + expires_in_seconds * 1000).toISOString() } : {}),
      });
      const { key, info } = await keys.create(name, { grant, parentId: caller.id });
      const { id, prefix, created_at, parent_id } = info;
      return asJson({ key, id, name: info.name, prefix, created_at, parent_id, ancestors: info.ancestors, ...grant });
    },
  );
  // The SDK advertises tools.listChanged once a tool is registered; a stateless exchange can never send that
  // notification (and the tool list is fixed), so clients must not wait for one.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

function asJson(value: unknown): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}
