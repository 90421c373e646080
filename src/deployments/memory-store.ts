import { zodAtHand } from '../internal/load-zod.ts';
import { MemoryEngine } from '../storage/memory-engine.ts';
import type { Deployment } from './deployment.ts';
import { indexById, type SourcedDeployment } from './store.ts';
import { DEPLOYMENTS_SCHEMA, StoredDeployments } from './stored-deployments.ts';
import { validateDeployment } from './validate-deployment.ts';

/**
 * Deployments held in memory (`StoredDeployments` on the memory engine): for tests, and for apps that build their
 * deployments in code. The initial array is checked first: each entry valid, no id twice (named by its index).
 */
export class MemoryDeploymentStore extends StoredDeployments {
  constructor(deployments: ReadonlyArray<Deployment> = []) {
    // The array is checked now, synchronously: zod at hand (the web build's whole zod, in a page that uses this).
    zodAtHand();
    const engine = new MemoryEngine();
    super(engine, { location: 'memory', conflict: 'in the memory deployment store' });
    const entries: SourcedDeployment[] = deployments.map((deployment, index) => ({
      deployment: validateDeployment(deployment, `memory[${index}]`, 400),
      source: `memory[${index}]`,
    }));
    const rows = [...indexById(entries, 'memory').values()].map(({ deployment }) => ({
      id: deployment.id,
      agent_id: deployment.agent_id,
      created_at: deployment.created_at,
      record: JSON.stringify(deployment),
    }));
    engine.migrateNow(DEPLOYMENTS_SCHEMA);
    engine.writeNow('deployments', rows, 'error');
  }
}
