import { requireAgent } from '../../access/agents.ts';
import { requireModelNamed } from '../../access/models.ts';
import { type Deployment, type DeploymentEnvironment, formatDeploymentId } from '../../deployments/deployment.ts';
import { compatibilityBreaks } from '../../deployments/deployment-compatibility.ts';
import type { DeploymentStore } from '../../deployments/store.ts';
import { validateDeployment } from '../../deployments/validate-deployment.ts';
import type { Gateway } from '../../gateway.ts';
import { canonicalJson } from '../../internal/canonical-json.ts';
import type { KeyAccess } from '../key-access.ts';
import { HttpError } from '../responses.ts';

export interface DeploymentVersionRequest {
  agent_id: string;
  environment?: DeploymentEnvironment | undefined;
  /** The version record (model, messages, output_schema, settings), checked as a stored deployment's. */
  version: unknown;
  description?: string | undefined;
  metadata?: Record<string, string> | undefined;
  /** Create it even when it would break the callers of the environment's latest deployment. */
  force?: boolean | undefined;
}

export interface DeploymentVersionResult {
  deployment: Deployment;
  /** False when the latest deployment already held exactly this version: nothing was stored. */
  created: boolean;
  /** The environment's deployment this one follows; `null` for the first, or when nothing was created. */
  previous_id: string | null;
  /** What breaks the callers of `previous_id`: non-empty only when `force` let it through. */
  breaks: string[];
  /** The `model` to call it with. */
  model: string;
}

/**
 * Creates `<agent_id>:<environment>#<n+1>` after the environment's latest deployment (`#1` for the first). A version
 * that would break that deployment's callers (`compatibilityBreaks`) is a 409 naming each break unless `force`;
 * the same content as the latest is answered with it, not stored twice. The key must act as the agent (its
 * operation needs `deployments:write`), checked before the store is read, so another agent's deployments answer as
 * if there were none.
 */
export async function createDeploymentVersion(
  gateway: Gateway,
  store: DeploymentStore | undefined,
  access: KeyAccess,
  request: DeploymentVersionRequest,
): Promise<DeploymentVersionResult> {
  requireAgent(access.key.allowed_agents, request.agent_id, 'act');
  if (!store) throw new HttpError(501, 'This server has no deployment store.', { code: 'no_deployment_store' });
  if (!store.put) throw new HttpError(405, "This server's deployment store is read-only.", { code: 'read_only_store' });
  const environment = request.environment ?? 'production';
  // Fresh: another replica or worker may have created a version within a remote store's cache lifetime.
  const previous = (await store.list({ agent_id: request.agent_id }, { fresh: true }))
    .filter((deployment) => deployment.environment === environment)
    .reduce<Deployment | undefined>(
      (latest, next) => (latest && latest.number >= next.number ? latest : next),
      undefined,
    );
  const number = previous ? previous.number + 1 : 1;
  const draft = {
    id: formatDeploymentId({ agent_id: request.agent_id, environment, number }),
    agent_id: request.agent_id,
    environment,
    number,
    version: request.version,
    created_at: new Date().toISOString(),
    ...(request.description === undefined ? {} : { description: request.description }),
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  };
  const deployment = validateDeployment(draft, 'create_or_update_deployment', 400);
  requireModelNamed(access.key.allowed_models, gateway.catalog, deployment.version.model);

  const answer = (stored: Deployment, created: boolean, breaks: string[]): DeploymentVersionResult => ({
    deployment: stored,
    created,
    previous_id: (created ? previous?.id : undefined) ?? null,
    breaks,
    model: `switchyard/deployment/${stored.id}`,
  });
  if (previous && sameContent(previous, deployment)) return answer(previous, false, []);
  const breaks = previous ? compatibilityBreaks(previous.version, deployment.version) : [];
  if (breaks.length > 0 && request.force !== true) {
    throw new HttpError(
      409,
      `The new version would break the callers of "${previous!.id}": ${breaks.join('; ')}. Keep the variables and ` +
        'output fields they rely on, or pass force: true to create it anyway.',
      { code: 'incompatible_deployment', param: 'version' },
    );
  }
  await store.put(deployment);
  return answer(deployment, true, breaks);
}

/** The same version, description and metadata: creating it again would only add a number. */
function sameContent(a: Deployment, b: Deployment): boolean {
  const content = ({ version, description, metadata }: Deployment) => canonicalJson({ version, description, metadata });
  return content(a) === content(b);
}
