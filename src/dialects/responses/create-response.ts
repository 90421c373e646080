import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { CompletionStream } from '../../completion/completion-stream.ts';
import { createCompletion } from '../../completion/create-completion.ts';
import type { CompletionOptions } from '../../completion/resolve-request.ts';
import type { Services } from '../../completion/services.ts';
import { chatToResponse, type SwitchyardResponse } from './from-chat.ts';
import { previousConversation } from './previous-response.ts';
import { ResponseEventStream } from './stream-events.ts';
import { responsesToChat } from './to-chat.ts';

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
  const history = params?.previous_response_id ? await previousConversation(services, params.previous_response_id) : [];
  const { request, warnings } = responsesToChat(params, history);
  const result = await createCompletion(services, request, options, { dialect: 'responses', warnings });
  return result instanceof CompletionStream ? new ResponseEventStream(result, params) : chatToResponse(result, params);
}
