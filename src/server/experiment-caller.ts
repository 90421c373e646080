import type { ExperimentCaller } from '../experiments/experiments-api.ts';
import type { KeyAccess } from './key-access.ts';
import { requireScope } from './key-scopes.ts';

/**
 * An API key's rules as experiments apply them, for every route and MCP tool alike: it acts as its agents, makes
 * each cell's call as a call of the key (its models, lineage and budgets; its rate and calls in flight, and only
 * while it is valid), copies inputs only from the calls it reads, and reads an experiment as it would read a call
 * made by the experiment's author for its agent.
 */
export function experimentCaller(access: KeyAccess | undefined): ExperimentCaller | undefined {
  if (!access) return undefined;
  const { key } = access;
  return {
    keyId: key.id,
    mayUseAgent: (agentId) => access.mayUseAgent(agentId),
    async mayRead(header) {
      if (header.author === key.id) return true;
      if (key.scopes.includes('calls:read')) return access.mayUseAgent(header.agent_id);
      if (!key.scopes.includes('calls:read:own') || header.author === null) return false;
      return (await access.descendants()).includes(header.author);
    },
    callScope: () => access.callQueryScope(),
    async experimentScope() {
      if (key.scopes.includes('calls:read'))
        return key.allowed_agents === null ? {} : { agent_ids: key.allowed_agents };
      requireScope(key, 'calls:read:own');
      return { api_key_ids: [key.id, ...(await access.descendants())] };
    },
    callOptions: () => ({ access: access.forCall(), metadata: { api_key_id: key.id } }),
    callSlot: (signal) => access.laterCallSlot(signal),
  };
}
