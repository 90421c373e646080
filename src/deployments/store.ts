import type { Deployment } from './deployment.ts';
import { DeploymentStoreError } from './errors.ts';

/** Where deployments are kept. Every store validates what it returns; `put` never changes an existing version. */
export interface DeploymentStore {
  /** The deployment with this id, or `undefined`. */
  get(id: string, options?: LookupOptions): Promise<Deployment | undefined>;
  /** Every deployment, or those of one agent, newest first. */
  list(filter?: { agent_id?: string }, options?: LookupOptions): Promise<Deployment[]>;
  /**
   * Up to `limit` ids of one agent's deployments, newest first, where the store can read them without its records
   * (a table's index): what a 404 suggests, asked on every miss. Absent: `list` is read instead.
   */
  recentIds?(agentId: string, limit: number, options?: LookupOptions): Promise<string[]>;
  /**
   * Stores a new deployment. The same id with the same content is a no-op; with other content,
   * `DeploymentConflictError`.
   */
  put?(deployment: Deployment): Promise<void>;
  /** True while answers come from a cache because the store itself cannot be reached (a remote store). */
  readonly stale?: boolean;
}

export interface LookupOptions {
  /**
   * The caller's signal: a store that waits on the network (the remote store) rejects as soon as it fires, with a
   * `DeploymentStoreError` 499 `aborted`. Local stores answer without waiting.
   */
  signal?: AbortSignal | undefined;
  /**
   * Ask the store itself, not a cache of its answers: what a write is based on (the next version's number), which
   * another process may have changed within the cache's lifetime. Stores that keep no cache answer as always.
   */
  fresh?: boolean | undefined;
}

/** A deployment and where it was read from (a file name, `memory[2]`, a URL), for error messages. */
export interface SourcedDeployment {
  deployment: Deployment;
  source: string;
}

/** Maps ids to entries; two entries with one id is an error naming both sources. */
export function indexById(entries: ReadonlyArray<SourcedDeployment>, location: string): Map<string, SourcedDeployment> {
  const byId = new Map<string, SourcedDeployment>();
  for (const entry of entries) {
    const known = byId.get(entry.deployment.id);
    if (known) {
      throw new DeploymentStoreError(
        `The deployment id "${entry.deployment.id}" is defined twice: in ${known.source} and in ${entry.source}. ` +
          `Deployment ids are unique across agents.`,
        { location, code: 'duplicate_deployment_id' },
      );
    }
    byId.set(entry.deployment.id, entry);
  }
  return byId;
}

/** Keeps one agent's deployments (when asked) and sorts them newest first, then by id. */
export function filterAndSort(deployments: Deployment[], filter: { agent_id?: string } = {}): Deployment[] {
  return deployments
    .filter((deployment) => filter.agent_id === undefined || deployment.agent_id === filter.agent_id)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
