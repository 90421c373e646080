import type Anthropic from '@anthropic-ai/sdk';
import { CompletionStream } from '../../completion/completion-stream.ts';
import { createCompletion } from '../../completion/create-completion.ts';
import type { CompletionOptions } from '../../completion/resolve-request.ts';
import type { Services } from '../../completion/services.ts';
import { chatToMessage, type SwitchyardMessage } from './from-chat.ts';
import { MessageEventStream } from './stream-events.ts';
import { messagesToChat } from './to-chat.ts';

/**
 * A Messages API call (Anthropic's `POST /v1/messages`), made as the same chat completion every other call is:
 * translated at the edge, routed, retried, recorded and priced by the one pipeline, and answered in the Messages
 * API's shape. A Claude model gets back what it was sent: the Anthropic adapter turns the chat request into the
 * same Messages request. See docs/messages-api.md.
 */
export async function createMessage(
  services: Services,
  params: Anthropic.MessageCreateParams,
  options: CompletionOptions = {},
): Promise<SwitchyardMessage | MessageEventStream> {
  const { request, warnings } = messagesToChat(params);
  const result = await createCompletion(services, request, options, { dialect: 'messages', warnings });
  return result instanceof CompletionStream ? new MessageEventStream(result) : chatToMessage(result);
}
