import type Anthropic from '@anthropic-ai/sdk';
import { CompletionStream } from '../../completion/completion-stream.ts';
import { createCompletion } from '../../completion/create-completion.ts';
import { findModel } from '../../completion/find-model.ts';
import { parseModelReference } from '../../completion/parse-model.ts';
import type { CompletionOptions } from '../../completion/resolve-request.ts';
import type { Services } from '../../completion/services.ts';
import type { ThinkingDisplay } from '../../providers/provider.ts';
import type { CompletionRequest, CompletionWarning } from '../../types.ts';
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
  clampToModelLimit(services, request, warnings);
  if (params.thinking?.type === 'adaptive') adaptiveThinking(services, request, warnings);
  const display = (params.thinking as { display?: ThinkingDisplay | null } | undefined)?.display ?? undefined;
  const result = await createCompletion(services, request, options, {
    dialect: 'messages',
    warnings,
    answersImages: false,
    // Sent to Claude; for another model it is only how the answer shows its reasoning (below).
    thinkingDisplay: display,
  });
  // `display: "omitted"`: thinking blocks keep their signatures, not their text (what Claude Code asks for).
  const thinkingText = display !== 'omitted';
  return result instanceof CompletionStream
    ? new MessageEventStream(result, thinkingText)
    : chatToMessage(result, thinkingText);
}

/**
 * `max_tokens` above what the model can write is lowered to its limit, with a warning, for a model the catalog lists
 * (a deployment's model, or one the catalog does not know, is left to the provider). Claude Code sets the limit of
 * the Claude it expects (up to 128,000) whatever model it is pointed at, and goes on with what it is given.
 */
function clampToModelLimit(services: Services, request: CompletionRequest, warnings: CompletionWarning[]): void {
  const reference = parseModelReference(request.model, services.registry.reservedNames);
  const asked = request.max_tokens;
  if (reference.kind !== 'model' || asked == null) return;
  const { model, provider } = reference;
  const entry = services.catalog.find(model) ?? (provider ? services.catalog.findOffering(provider, model) : undefined);
  if (!entry || asked <= entry.max_output_tokens) return;
  request.max_tokens = entry.max_output_tokens;
  warnings.push({
    code: 'converted_parameter',
    param: 'max_tokens',
    message: `${entry.id} writes at most ${entry.max_output_tokens} tokens; max_tokens ${asked} was lowered to it.`,
  });
}

/**
 * `thinking: { type: "adaptive" }` asks for reasoning when it is useful (Claude Code sends it on every turn): on a
 * model that does not reason it is dropped with a warning, an error only under `strict`, where an explicit budget
 * or effort is a 400. A reference the catalog cannot settle here (a deployment, an unknown id) goes on as it is.
 */
function adaptiveThinking(services: Services, request: CompletionRequest, warnings: CompletionWarning[]): void {
  let id: string;
  try {
    const reference = parseModelReference(request.model, services.registry.reservedNames);
    if (reference.kind !== 'model') return;
    const { model } = findModel(services, reference, () => {});
    if (model.supports.reasoning) return;
    id = model.id;
  } catch {
    return; // the pipeline answers the reference's own error
  }
  delete request.reasoning;
  warnings.push({
    code: 'unsupported_parameter',
    param: 'thinking',
    message: `${id} does not reason, so thinking "adaptive" was not sent: the model answered without thinking.`,
  });
}
