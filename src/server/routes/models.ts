import { ModelNotFoundError } from '../../errors.ts';
import type { Gateway } from '../../gateway.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/** `GET /v1/models[?reasoning=true]` and `GET /v1/models/{id}`: the catalog as `gateway.listModels()` gives it. No key. */
export function modelRoutes(gateway: Gateway): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/v1\/models$/,
      auth: 'none',
      async handle({ request }) {
        return json(gateway.listModels({ reasoning: booleanParam(request.query, 'reasoning') ?? false }));
      },
    },
    {
      // Ids hold dots and colons, and may hold an encoded "/": everything after /v1/models/ is the id.
      method: 'GET',
      path: /^\/v1\/models\/(.+)$/,
      auth: 'none',
      async handle({ params: [id = ''] }) {
        const models = gateway.listModels().data;
        const entry = gateway.catalog.find(id);
        const model = models.find((candidate) => candidate.id === id) ?? (entry && models.find((candidate) => candidate.id === entry.id));
        if (!model) throw new ModelNotFoundError(id, gateway.catalog.suggest(id));
        return json(model);
      },
    },
  ];
}

/** `true`/`1`, `false`/`0`, or absent. */
export function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new HttpError(400, `"${name}" must be true or false.`, { param: name, code: 'invalid_parameter' });
}
