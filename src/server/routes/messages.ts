import type Anthropic from '@anthropic-ai/sdk';
import { anthropicErrorBody, MessageEventStream } from '../../dialects/messages/stream-events.ts';
import type { Gateway } from '../../gateway.ts';
import { allowedCallOptions } from '../call-options.ts';
import { streamReply } from '../exchange.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/**
 * `POST /v1/messages`: the Anthropic Messages API, for clients built on Anthropic's SDKs (Claude Code with
 * `ANTHROPIC_BASE_URL` pointed here). The key comes as `x-api-key` or a Bearer token; errors come back in
 * Anthropic's shape. `POST /v1/messages/count_tokens` is refused: this gateway has no tokenizer of every model.
 */
export function messageRoutes(gateway: Gateway, maxBodyBytes: number): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/messages$/,
      auth: 'key',
      scope: 'chat',
      errorBody: anthropicErrorBody,
      apiPath: '/v1/messages',
      async handle({ request, access }) {
        const body = (await readJsonBody(request, maxBodyBytes)) as Anthropic.MessageCreateParams;
        const result = await gateway.createMessage(body, allowedCallOptions(request, access, body));
        const callId = { 'x-switchyard-call-id': result.switchyard.call_id };
        if (!(result instanceof MessageEventStream)) return json(result, 200, callId);
        return streamReply(result);
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/messages\/count_tokens$/,
      auth: 'key',
      errorBody: anthropicErrorBody,
      apiPath: '/v1/messages',
      async handle() {
        throw new HttpError(
          404,
          'count_tokens is not offered by switchyard serve: it has no tokenizer for every model it reaches. Count ' +
            "with the provider's own API, or read usage.input_tokens of a call.",
          { code: 'count_tokens_not_supported' },
        );
      },
    },
  ];
}
