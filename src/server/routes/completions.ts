import { CompletionStream } from '../../completion/completion-stream.ts';
import type { Gateway } from '../../gateway.ts';
import type { CompletionRequest } from '../../types.ts';
import { allowedCallOptions } from '../call-options.ts';
import { streamReply } from '../exchange.ts';
import { readJsonBody } from '../read-json-body.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';

/**
 * `POST /v1/chat/completions`: the body goes to `gateway.createCompletion` as it is (the library validates it), and
 * the request's signal aborts the call when the client goes away. Streams leave as every dialect's do (`streamReply`).
 */
export function completionRoutes(gateway: Gateway, maxBodyBytes: number): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/chat\/completions$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }) {
        const body = (await readJsonBody(request, maxBodyBytes)) as CompletionRequest;
        const result = await gateway.createCompletion(body, allowedCallOptions(request, access, body));
        const callId = { 'x-switchyard-call-id': result.switchyard.call_id };
        if (!(result instanceof CompletionStream)) return json(result, 200, callId);
        return streamReply(result);
      },
    },
  ];
}
