import { PermissionDeniedError } from '../errors.ts';
import { forbidden } from './scopes.ts';

/**
 * Who a caller may act as: `null` or absent, any agent; a list (a key's `allowed_agents`, `CallAccess.agents`);
 * or an application's own predicate (`ExperimentCaller.mayUseAgent`).
 */
export type AgentRule = readonly string[] | null | undefined | ((agentId: string) => boolean);

export function mayActAs(rule: AgentRule, agentId: string): boolean {
  if (!rule) return true;
  return typeof rule === 'function' ? rule(agentId) : rule.includes(agentId);
}

/**
 * The one agent check: a 403 unless the caller may `call` (a completion, an embedding) or `act` (write a deployment,
 * an experiment) as `agentId`; a caller limited to agents that names none is refused too.
 */
export function requireAgent(rule: AgentRule, agentId: string | undefined, verb: 'call' | 'act'): void {
  if (!rule || (agentId !== undefined && mayActAs(rule, agentId))) return;
  const only = typeof rule === 'function' ? '' : rule.join(', ');
  if (agentId === undefined)
    throw new PermissionDeniedError(
      `This API key may ${verb} only as the agents ${only}: name one (metadata.agent_id or the ` +
        'x-switchyard-agent-id header).',
    );
  throw new PermissionDeniedError(
    `This API key may not ${verb} as the agent "${agentId}"${only ? `; it may ${verb} only as ${only}` : ''}.`,
  );
}

/**
 * The agent a call runs as: the one it names, else a caller limited to exactly one agent runs as that one; a 403
 * when it is not among the caller's (or none is named and the caller has several).
 */
export function actingAgent(
  agents: readonly string[] | null | undefined,
  named: string | undefined,
): string | undefined {
  const agentId = named ?? (agents?.length === 1 ? agents[0] : undefined);
  requireAgent(agents, agentId, 'call');
  return agentId;
}

/**
 * A 403 for a caller limited to agents on a view that spans every agent and cannot be cut to some (traces, daily
 * costs, agent totals, the metrics); `instead` says where its own agents' part is.
 */
export function requireEveryAgent(agents: readonly string[] | null | undefined, what: string, instead = ''): void {
  if (agents) throw forbidden(`this API key reads only its own agents; ${what} span every agent${instead}`);
}
