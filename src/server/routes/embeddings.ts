import type { EmbeddingRequest } from '../../embeddings/embedding-types.ts';
import type { Gateway } from '../../gateway.ts';
import { allowedCallOptions } from '../call-options.ts';
import { readJsonBody } from '../read-json-body.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';

/** `POST /v1/embeddings`: OpenAI's embeddings API, for every embedding model the gateway reaches. */
export function embeddingRoutes(gateway: Gateway, maxBodyBytes: number): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/embeddings$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }) {
        const body = (await readJsonBody(request, maxBodyBytes)) as EmbeddingRequest;
        const result = await gateway.createEmbedding(body, allowedCallOptions(request, access, body));
        return json(result, 200, { 'x-switchyard-call-id': result.switchyard.call_id });
      },
    },
  ];
}
