import { mayActAs } from '../../access/agents.ts';
import { hasScope, READS_CALLS } from '../../access/scopes.ts';
import type { Deployment } from '../../deployments/deployment.ts';
import type { Gateway } from '../../gateway.ts';
import type { CallQuery } from '../../records/call-query.ts';
import type { KeyAccess } from '../key-access.ts';
import { queryCalls } from '../operations/calls.ts';

/** Distinct agents read from the call records at most: one group query's limit. */
const MAX_CALL_AGENTS = 1000;
export const DEFAULT_AGENT_LIMIT = 100;

export interface AgentListing {
  agent_id: string;
  /** Calls of the agent the key reads. */
  calls: number;
  /** Their cost, of the calls whose price is known. */
  cost_usd: number;
  first_call_at: string | null;
  last_call_at: string | null;
  deployments: number;
  /** The newest deployment id per environment: what to call as `switchyard/deployment/<id>`. */
  latest_deployments: Record<string, string>;
}

/**
 * The agents a key may see, sorted by id: those of the calls it reads (the call query's scope) and those with
 * deployments (with `deployments:read`, of its agents only), merged; a key with one kind of read scope sees that
 * side. `list_agents` declares that it needs one of them.
 */
export async function listAgents(
  gateway: Gateway,
  access: KeyAccess,
  limit = DEFAULT_AGENT_LIMIT,
): Promise<{ object: 'list'; data: AgentListing[]; has_more: boolean }> {
  const { key } = access;
  const readsCalls = hasScope(key, READS_CALLS);
  const readsDeployments = hasScope(key, 'deployments:read');

  const agents = new Map<string, AgentListing>();
  const entry = (agent_id: string): AgentListing => {
    const known = agents.get(agent_id);
    if (known) return known;
    const agent: AgentListing = {
      agent_id,
      calls: 0,
      cost_usd: 0,
      first_call_at: null,
      last_call_at: null,
      deployments: 0,
      latest_deployments: {},
    };
    agents.set(agent_id, agent);
    return agent;
  };
  if (readsCalls) {
    const query: CallQuery = {
      group_by: ['agent_id'],
      aggregates: [
        { fn: 'count' },
        { fn: 'sum', field: 'cost_usd' },
        { fn: 'min', field: 'created_at' },
        { fn: 'max', field: 'created_at' },
      ],
      limit: MAX_CALL_AGENTS,
    };
    for (const row of (await queryCalls(gateway, query, access)).data) {
      if (typeof row.agent_id !== 'string' || !mayActAs(key.allowed_agents, row.agent_id)) continue;
      const agent = entry(row.agent_id);
      agent.calls = Number(row.count ?? 0);
      agent.cost_usd = Number(row.sum_cost_usd ?? 0);
      agent.first_call_at = typeof row.min_created_at === 'string' ? row.min_created_at : null;
      agent.last_call_at = typeof row.max_created_at === 'string' ? row.max_created_at : null;
    }
  }
  if (readsDeployments) {
    for (const deployment of await gateway.listDeployments()) {
      if (mayActAs(key.allowed_agents, deployment.agent_id)) addDeployment(entry(deployment.agent_id), deployment);
    }
  }

  const sorted = [...agents.values()].sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0));
  const data = sorted.slice(0, limit);
  return { object: 'list', data, has_more: sorted.length > limit };
}

/** Deployments are listed newest first: the first one seen per environment is its latest. */
function addDeployment(agent: AgentListing, deployment: Deployment): void {
  agent.deployments += 1;
  agent.latest_deployments[deployment.environment] ??= deployment.id;
}
