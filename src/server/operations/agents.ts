import { READS_CALLS } from '../../access/scopes.ts';
import { defineOperation } from '../operation.ts';
import { createDeploymentVersion } from '../routes/deployment-versions.ts';
import { visibleDeployments } from '../routes/deployments.ts';
import { listAgents } from '../routes/list-agents.ts';
import { agentInputs } from './agent-inputs.ts';

/**
 * The agent operations of `/mcp` (MCP only: their HTTP routes, `GET /v1/deployments` with its ETags and
 * `PUT /v1/deployments/{id}`, are not JSON in and out, and ask the same rules): the catalog, the agents the key
 * sees, one agent's deployments, and the next deployment of an agent's environment.
 */
export const listModels = defineOperation({
  name: 'list_models',
  description:
    'Lists the model catalog: id, USD price per 1M input and output tokens, context window, release date, ' +
    'reasoning support.',
  input: () => agentInputs().listModels,
  hints: { readOnlyHint: true },
  async handle({ reasoning }, { gateway }) {
    return gateway.listModels({ reasoning: reasoning ?? false }).data.map((model) => ({
      id: model.id,
      price_in: model.pricing?.input ?? null,
      price_out: model.pricing?.output ?? null,
      context_window: model.context_window,
      release_date: model.release_date,
      reasoning: model.supports.reasoning,
    }));
  },
});

export const listAgentsOperation = defineOperation({
  name: 'list_agents',
  description:
    'Lists the agents this key may see: from the recorded calls it reads (calls, cost_usd, first_call_at, ' +
    'last_call_at) and from the deployments (count, latest id per environment), sorted by id. A key limited to ' +
    'agents sees only those.',
  scope: [...READS_CALLS, 'deployments:read'],
  input: () => agentInputs().listAgents,
  hints: { readOnlyHint: true },
  handle: ({ limit }, { gateway, access }) => listAgents(gateway, access, limit),
});

export const listDeployments = defineOperation({
  name: 'list_deployments',
  description:
    'Lists the stored deployments (agent versions, called as model "switchyard/deployment/<id>") of one agent, ' +
    'newest first.',
  scope: 'deployments:read',
  input: () => agentInputs().listDeployments,
  hints: { readOnlyHint: true },
  handle: ({ agent_id }, { gateway, access }) => visibleDeployments(gateway, access.key, agent_id),
});

export const createOrUpdateDeployment = defineOperation({
  name: 'create_or_update_deployment',
  description:
    'Deploys a version of an agent as <agent_id>:<environment>#<n>, the next number of that environment ' +
    '(deployments are immutable: an update is a new number). Refused, naming what breaks, when the callers ' +
    'of the latest deployment would break (a new {{variable}}; an output field removed, retyped or no ' +
    'longer required), unless force is true. The same content again is answered with the existing one. ' +
    'Call it with model "switchyard/deployment/<id>" and input: { <variables> }. The key must act as the agent ' +
    'and may pin only its models.',
  scope: 'deployments:write',
  input: () => agentInputs().createOrUpdate,
  handle: (input, { gateway, deployments, access }) => createDeploymentVersion(gateway, deployments, access, input),
});
