import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as streamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import * as z from 'zod';
import type { DeploymentStore } from '../../deployments/store.ts';
import type { Gateway } from '../../gateway.ts';
import type { BackgroundRuns } from '../background-runs.ts';
import { type Reply, replyFromResponse, type ServerRequest } from '../exchange.ts';
import type { KeyAccess } from '../key-access.ts';
import { createKey, listKeys, revokeKey } from '../key-admin.ts';
import { createKeyInput } from '../key-input.ts';
import { requireScope } from '../key-scopes.ts';
import type { KeyStore } from '../key-store.ts';
import { registerAgentTools } from './mcp-agent-tools.ts';
import { registerAnnotationTools } from './mcp-annotation-tools.ts';
import { registerCallTools } from './mcp-call-tools.ts';
import { registerExperimentTools } from './mcp-experiment-tools.ts';
import { asJson } from './mcp-reply.ts';

const listModelsInput = z
  .object({
    reasoning: z.boolean().optional().describe('true: only models that support reasoning. Omit for every model.'),
  })
  .strict();
const listDeploymentsInput = z
  .object({ agent_id: z.string().min(1).describe('The agent whose deployments to list, such as "support".') })
  .strict();
const revokeApiKeyInput = z
  .object({ key: z.string().min(1).max(200).describe('The id (key_…) or prefix (sy-AbCdEfGh) of the key to revoke.') })
  .strict();

/** One stateless MCP exchange: a server and a transport per request, answering in JSON. */
export async function answerMcp(
  request: ServerRequest,
  body: unknown,
  gateway: Gateway,
  keys: KeyStore,
  access: KeyAccess,
  version: string,
  deployments: DeploymentStore | undefined,
  runs: BackgroundRuns,
): Promise<Reply> {
  // No sessionIdGenerator: stateless.
  const server = buildServer(gateway, keys, access, version);
  registerAgentTools(server, gateway, deployments, access);
  registerExperimentTools(server, gateway, runs, access);
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
      inputSchema: createKeyInput,
    },
    async (input) => asJson(await createKey(keys, caller, input)),
  );
  server.registerTool(
    'list_api_keys',
    {
      description:
        'Lists the API keys the calling key manages (never their hashes): the keys minted under it, however deep, ' +
        'or every key for an admin key. Needs the keys:create scope.',
      inputSchema: z.object({}).strict(),
      annotations: { readOnlyHint: true },
    },
    async () => asJson(await listKeys(keys, caller)),
  );
  server.registerTool(
    'revoke_api_key',
    {
      description:
        'Revokes an API key the calling key manages, and every key minted under it. Needs the keys:create scope.',
      inputSchema: revokeApiKeyInput,
      annotations: { destructiveHint: true },
    },
    async ({ key }) => asJson(await revokeKey(keys, caller, key)),
  );
  registerCallTools(server, gateway, access);
  registerAnnotationTools(server, gateway, access);
  // The SDK advertises tools.listChanged once a tool is registered; a stateless exchange can never send that
  // notification (and the tool list is fixed), so clients must not wait for one.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
