import { mayActAs, requireAgent } from '../../access/agents.ts';
import { requireModelNamed } from '../../access/models.ts';
import { type Deployment, sameDeployment } from '../../deployments/deployment.ts';
import { DeploymentNotFoundError } from '../../deployments/errors.ts';
import { assertDeploymentId } from '../../deployments/resolve-deployment.ts';
import type { DeploymentStore } from '../../deployments/store.ts';
import { validateDeployment } from '../../deployments/validate-deployment.ts';
import type { Gateway } from '../../gateway.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError, json, jsonWithEtag } from '../responses.ts';
import type { Route } from '../router.ts';

/**
 * The deployment API that `RemoteDeploymentStore` speaks: list, get (with ETags, so its cache revalidates with a
 * 304), and PUT, which creates and never overwrites: the same content again is a 200, other content a 409.
 */
export function deploymentRoutes(gateway: Gateway, store: DeploymentStore | undefined, maxBodyBytes: number): Route[] {
  const requireStore = (): DeploymentStore => {
    if (!store) throw new HttpError(501, 'This server has no deployment store.', { code: 'no_deployment_store' });
    return store;
  };
  return [
    {
      method: 'GET',
      path: /^\/v1\/deployments$/,
      auth: 'key',
      scope: 'deployments:read',
      async handle({ request, access }) {
        const data = await visibleDeployments(gateway, access!.key, request.query.get('agent_id') ?? undefined);
        return jsonWithEtag(request, { object: 'list', data });
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/deployments\/([^/]+)$/,
      auth: 'key',
      scope: 'deployments:read',
      async handle({ request, params: [id = ''], access }) {
        assertDeploymentId(id, null);
        const deployment = await requireStore().get(id);
        // Another agent's deployment answers as one that does not exist: its prompt is that agent's.
        if (!deployment || !mayActAs(access!.key.allowed_agents, deployment.agent_id)) throw notFound(id);
        return jsonWithEtag(request, deployment);
      },
    },
    {
      method: 'PUT',
      path: /^\/v1\/deployments\/([^/]+)$/,
      auth: 'key',
      scope: 'deployments:write',
      async handle({ request, params: [id = ''], access }) {
        assertDeploymentId(id, null);
        const target = requireStore();
        if (!target.put)
          throw new HttpError(405, "This server's deployment store is read-only.", { code: 'read_only_store' });
        const body = await readJsonBody(request, maxBodyBytes);
        const deployment = validateDeployment(body, `PUT /v1/deployments/${id}`, 400);
        if (deployment.id !== id) {
          throw new HttpError(400, `The body's id "${deployment.id}" differs from the id in the path, "${id}".`, {
            param: 'id',
            code: 'id_mismatch',
          });
        }
        requireAgent(access!.key.allowed_agents, deployment.agent_id, 'act');
        requireModelNamed(access!.key.allowed_models, gateway.catalog, deployment.version.model);
        const existing = await target.get(id);
        // put() itself refuses to overwrite; the lookup only tells "created" (201) from "already there" (200).
        await target.put(deployment);
        return json(deployment, existing && sameDeployment(existing, deployment) ? 200 : 201);
      },
    },
  ];
}

/**
 * The deployments a key sees (`GET /v1/deployments`, `list_deployments`), newest first: another agent's are not
 * there for a key limited to agents, an empty list as for an agent with none.
 */
export async function visibleDeployments(
  gateway: Gateway,
  key: { allowed_agents: readonly string[] | null },
  agentId: string | undefined,
): Promise<Deployment[]> {
  if (agentId !== undefined && !mayActAs(key.allowed_agents, agentId)) return [];
  const all = await gateway.listDeployments(agentId === undefined ? {} : { agent_id: agentId });
  return all.filter((deployment) => mayActAs(key.allowed_agents, deployment.agent_id));
}

/** The library's 404, with `param: null`: here the id is in the path, not in a `model` parameter. */
function notFound(id: string): HttpError {
  const error = new DeploymentNotFoundError(id);
  return new HttpError(404, error.message, { code: error.code });
}
