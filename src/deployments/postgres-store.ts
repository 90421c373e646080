import { redactedUrl } from '../internal/redacted-url.ts';
import { PostgresEngine } from '../storage/postgres-engine.ts';
import { StoredDeployments } from './stored-deployments.ts';

/** Deployments in PostgreSQL, shared by every replica of `serve --database`: `StoredDeployments`. */
export class PostgresDeploymentStore extends StoredDeployments {
  constructor(url: string) {
    const location = redactedUrl(url);
    super(new PostgresEngine(url, { max: 4 }), { location, conflict: 'in the PostgreSQL deployment store' });
  }

  override close(): Promise<void> {
    return Promise.resolve(super.close()).catch(() => {});
  }
}
