import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { DEPLOYMENT_ENVIRONMENTS } from '../../deployments/deployment.ts';
import type { DeploymentStore } from '../../deployments/store.ts';
import type { Gateway } from '../../gateway.ts';
import type { KeyAccess } from '../key-access.ts';
import { createDeploymentVersion } from './deployment-versions.ts';
import { DEFAULT_AGENT_LIMIT, listAgents } from './list-agents.ts';
import { asJson } from './mcp-reply.ts';

/** Built on the first MCP exchange: this module is loaded with the MCP server, never with the package. */
let schemas: ReturnType<typeof buildSchemas> | undefined;

function buildSchemas() {
  const listAgents = z
    .object({
      limit: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .describe(`Agents returned, by id: default ${DEFAULT_AGENT_LIMIT}, at most 1000.`),
    })
    .strict();
  // Other members are any JSON, said so (an empty schema reads as one that forgot to constrain): the version is
  // checked in full as a stored deployment's.
  const json = z.json();
  const message = z.object({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']) }).catchall(json);
  const version = z
    .object({
      model: z.string().min(1).max(200).describe('A catalog model id, such as "gpt-4o-mini".'),
      messages: z
        .array(message)
        .max(200)
        .describe('OpenAI chat messages; their texts may hold {{variables}}, filled from each call\u2019s input.'),
      output_schema: z
        .object({ json_schema: z.object({ type: z.literal('object') }).catchall(json) })
        .optional()
        .describe('{ json_schema: <JSON Schema with "type": "object"> }: the structured answer.'),
    })
    .catchall(json)
    .describe('The agent version: model, messages, output_schema, and any deployable setting (temperature, …).');
  const createOrUpdate = z
    .object({
      agent_id: z.string().min(1).max(200).describe('The agent the deployment belongs to, such as "support".'),
      environment: z.enum(DEPLOYMENT_ENVIRONMENTS).optional().describe('production (default), staging or dev.'),
      version,
      description: z.string().max(2000).optional().describe('What changed, for whoever reads the deployments.'),
      metadata: z
        .record(z.string().max(200), z.string().max(1000))
        .refine((value) => Object.keys(value).length <= 20, 'at most 20 keys')
        .optional()
        .describe('Labels of strings (at most 20).'),
      force: z
        .boolean()
        .optional()
        .describe('true: create it even when it breaks the callers of the latest deployment (new variables, …).'),
    })
    .strict();
  return { listAgents, createOrUpdate };
}

/**
 * The agent tools of `/mcp`: `list_agents` (the agents of the calls and deployments the key sees) and
 * `create_or_update_deployment` (the next deployment of an agent's environment, refused when it breaks callers).
 */
export function registerAgentTools(
  server: McpServer,
  gateway: Gateway,
  store: DeploymentStore | undefined,
  access: KeyAccess,
): void {
  schemas ??= buildSchemas();
  server.registerTool(
    'list_agents',
    {
      description:
        'Lists the agents this key may see: from the recorded calls it reads (calls, cost_usd, first_call_at, ' +
        'last_call_at) and from the deployments (count, latest id per environment), sorted by id. Needs ' +
        'calls:read, calls:read:own or deployments:read; a key limited to agents sees only those.',
      inputSchema: schemas.listAgents,
      annotations: { readOnlyHint: true },
    },
    async ({ limit }) => asJson(await listAgents(gateway, access, limit)),
  );
  server.registerTool(
    'create_or_update_deployment',
    {
      description:
        'Deploys a version of an agent as <agent_id>:<environment>#<n>, the next number of that environment ' +
        '(deployments are immutable: an update is a new number). Refused, naming what breaks, when the callers ' +
        'of the latest deployment would break (a new {{variable}}; an output field removed, retyped or no ' +
        'longer required), unless force is true. The same content again is answered with the existing one. ' +
        'Call it with model "switchyard/deployment/<id>" and input: { <variables> }. Needs deployments:write ' +
        'and the agent.',
      inputSchema: schemas.createOrUpdate,
    },
    async (input) => asJson(await createDeploymentVersion(gateway, store, access, input)),
  );
}
