import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { ResponseEventStream } from '../../dialects/responses/stream-events.ts';
import type { Gateway } from '../../gateway.ts';
import { allowedCallOptions } from '../call-options.ts';
import { streamReply } from '../exchange.ts';
import { readJsonBody } from '../read-json-body.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';

/** `POST /v1/responses`: OpenAI's Responses API (the Agents SDK, Codex), for every model. */
export function responseRoutes(gateway: Gateway, maxBodyBytes: number): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/responses$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }) {
        const body = (await readJsonBody(request, maxBodyBytes)) as ResponseCreateParams;
        const result = await gateway.createResponse(body, allowedCallOptions(request, access, body));
        const callId = { 'x-switchyard-call-id': result.switchyard.call_id };
        if (!(result instanceof ResponseEventStream)) return json(result, 200, callId);
        return streamReply(result);
      },
    },
  ];
}
