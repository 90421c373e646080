import type { Annotation, AnnotationInput, AnnotationPage, AnnotationQuery } from '../../annotations/annotation.ts';
import type { ExperimentHeader } from '../../experiments/experiment.ts';
import type { Gateway } from '../../gateway.ts';
import { experimentCaller } from '../experiment-caller.ts';
import type { KeyAccess } from '../key-access.ts';
import { requireScope } from '../key-scopes.ts';
import { readJsonBody } from '../read-json-body.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';

/** 100 annotations of 10,000 characters each, escaped, with room to spare. */
const MAX_ANNOTATIONS_BYTES = 2 * 1024 * 1024;
const QUERY_PARAMS = ['agent_id', 'call_id', 'experiment_id', 'metric', 'since', 'until', 'cursor'] as const;

/**
 * `POST /v1/annotations` (`annotations:write`: the key's agents' calls, or those it reads) and `GET /v1/annotations`
 * (the annotations of the calls the key reads, as a call query's scope). The MCP tools `add_annotations` and
 * `get_annotations` call the same two functions.
 */
export function annotationRoutes(gateway: Gateway): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/annotations$/,
      auth: 'key',
      scope: 'annotations:write',
      async handle({ request, access }) {
        const body = (await readJsonBody(request, MAX_ANNOTATIONS_BYTES)) as { annotations?: unknown } | null;
        // One annotation as the body (end-user feedback), or a list under `annotations`.
        const many = typeof body === 'object' && body !== null && 'annotations' in body;
        const input = (many ? body.annotations : body) as AnnotationInput[] | AnnotationInput;
        return json({ object: 'list', data: await addAnnotations(gateway, input, access) }, 201);
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/annotations$/,
      auth: 'key',
      async handle({ request, access }) {
        const query: Record<string, string | number> = {};
        for (const name of QUERY_PARAMS) {
          const value = request.query.get(name);
          if (value !== null) query[name] = value;
        }
        const limit = request.query.get('limit');
        // A number for the schema to check; anything else left as text, for its 400 to name `limit`.
        if (limit !== null) query.limit = /^\d{1,6}$/.test(limit) ? Number(limit) : limit;
        return json(await listAnnotations(gateway, query as AnnotationQuery, access));
      },
    },
  ];
}

/** Stores annotations on calls `access` may annotate; any other call is a 404, as one that does not exist. */
export async function addAnnotations(
  gateway: Gateway,
  input: AnnotationInput[] | AnnotationInput,
  access: KeyAccess | undefined,
): Promise<Annotation[]> {
  if (!access) return gateway.annotations.add(input);
  requireScope(access.key, 'annotations:write');
  const caller = experimentCaller(access)!;
  return gateway.annotations.add(input, {
    author: access.key.id,
    mayAnnotate: (record) => access.mayAnnotate(record),
    // A cell as a call: a key limited to agents annotates its agents' cells; any other, the experiments it reads.
    mayAnnotateExperiment: (owner) =>
      access.key.allowed_agents !== null
        ? access.mayUseAgent(owner.agent_id)
        : (caller.mayRead?.({ agent_id: owner.agent_id, author: owner.author } as ExperimentHeader) ?? false),
  });
}

/** The annotations of the calls `access` reads (every one in-process, without a key); a 403 without a read scope. */
export async function listAnnotations(
  gateway: Gateway,
  query: AnnotationQuery,
  access: KeyAccess | undefined,
): Promise<AnnotationPage> {
  const scope = access ? await access.callQueryScope() : {};
  return gateway.annotations.list(query, { scope });
}
