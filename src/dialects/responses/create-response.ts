import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { CompletionStream } from '../../completion/completion-stream.ts';
import { createCompletion } from '../../completion/create-completion.ts';
import type { CompletionOptions } from '../../completion/resolve-request.ts';
import type { Services } from '../../completion/services.ts';
import { utf8Length } from '../../internal/bytes.ts';
import { chatToResponse, type SwitchyardResponse } from './from-chat.ts';
import { previousConversation } from './previous-response.ts';
import { ResponseEventStream } from './stream-events.ts';
import { translateResponses } from './to-chat.ts';
import { validateResponsesBody } from './validate.ts';

/**
 * A Responses API call (OpenAI's `POST /v1/responses`), made as the same chat completion every other call is:
 * translated at the edge (with the conversation of `previous_response_id` read back from the records), routed,
 * retried, recorded and priced by the one pipeline, and answered in the Responses API's shape. See
 * docs/responses-api.md.
 */
export async function createResponse(
  services: Services,
  params: ResponseCreateParams,
  options: CompletionOptions = {},
): Promise<SwitchyardResponse | ResponseEventStream> {
  // Checked before the conversation is read: a malformed body costs no record lookup.
  validateResponsesBody(params);
  const previous = params.previous_response_id;
  const history = previous
    ? await previousConversation(services, previous, options.access, addedBytes(params), options.signal)
    : [];
  const { request, warnings } = translateResponses(params, history);
  const result = await createCompletion(services, request, options, {
    dialect: 'responses',
    warnings,
    answersImages: false,
  });
  return result instanceof CompletionStream ? new ResponseEventStream(result, params) : chatToResponse(result, params);
}

/** The bytes a call adds to the conversation it continues: its input and its instructions. */
function addedBytes(params: ResponseCreateParams): number {
  const input = typeof params.input === 'string' ? params.input : JSON.stringify(params.input ?? '');
  return utf8Length(input) + utf8Length(params.instructions ?? '');
}
