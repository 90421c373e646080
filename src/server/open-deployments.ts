import { createDeploymentStore } from '../deployments/create-store.ts';
import { SqliteDeploymentStore } from '../deployments/sqlite-store.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import { redactedUrl } from '../internal/redacted-url.ts';

/** The deployment store of `serve`, what the log calls it, and how to close it (a store it opened itself). */
export interface ServerDeployments {
  store: DeploymentStore;
  shown: string;
  close(): Promise<void>;
}

/**
 * `deployments` (a directory or URL) when given; else PostgreSQL with `database`, shared by every replica; else the
 * data directory's SQLite file (`dbPath`).
 */
export async function openDeployments(
  options: { deployments?: string | undefined; database?: string | undefined },
  dbPath: string,
): Promise<ServerDeployments> {
  if (options.deployments !== undefined) {
    const store = createDeploymentStore(options.deployments);
    return { store, shown: redactedUrl(options.deployments), close: async () => {} };
  }
  if (options.database) {
    const { PostgresDeploymentStore } = await import('../deployments/postgres-store.ts');
    const store = new PostgresDeploymentStore(options.database);
    return { store, shown: 'postgres', close: () => store.close() };
  }
  const store = new SqliteDeploymentStore(dbPath);
  return { store, shown: 'sqlite', close: async () => store.close() };
}
