import { mayActAs } from '../access/agents.ts';
import { madeByAuthor, mayChange, mayRead, readScope } from '../access/reads.ts';
import type { ExperimentCaller } from '../experiments/experiments-api.ts';
import type { KeyAccess } from './key-access.ts';

/**
 * An API key's rules as experiments apply them, for every route, operation and page alike: it acts as its agents,
 * makes each cell's call as a call of the key (its models, lineage and budgets; its rate and calls in flight, and
 * only while it is valid), copies inputs only from the calls it reads, and reads an experiment as it would read a
 * call made by the experiment's author for its agent (`src/access/reads.ts`).
 */
export function experimentCaller(access: KeyAccess | undefined): ExperimentCaller | undefined {
  if (!access) return undefined;
  const { key } = access;
  return {
    keyId: key.id,
    mayUseAgent: (agentId) => mayActAs(key.allowed_agents, agentId),
    mayRead: (header) => mayRead(key, madeByAuthor(header), access),
    mayChange: (header) => mayChange(key, madeByAuthor(header), access),
    callScope: () => readScope(key, access),
    experimentScope: () => readScope(key, access),
    callOptions: () => ({ access: access.forCall(), metadata: { api_key_id: key.id } }),
    callSlot: (signal) => access.laterCallSlot(signal),
  };
}
