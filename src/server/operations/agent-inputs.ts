import type * as Zod from 'zod';
import { DEPLOYMENT_ENVIRONMENTS } from '../../deployments/deployment.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import { DEFAULT_AGENT_LIMIT } from '../routes/list-agents.ts';

const loadZod = lazyRequire<typeof Zod>('zod');

/** The inputs of the agent operations (`list_agents`, `list_deployments`, `create_or_update_deployment`). */
export const agentInputs = () => (schemas ??= buildSchemas(loadZod().z));
let schemas: ReturnType<typeof buildSchemas> | undefined;

function buildSchemas(z: typeof Zod.z) {
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
  const listDeployments = z
    .object({ agent_id: z.string().min(1).describe('The agent whose deployments to list, such as "support".') })
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
  const listModels = z
    .object({
      reasoning: z.boolean().optional().describe('true: only models that support reasoning. Omit for every model.'),
    })
    .strict();
  return { listAgents, listDeployments, createOrUpdate, listModels };
}
