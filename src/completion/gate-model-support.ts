import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelEntry } from '../catalog/catalog-schema.ts';
import { GATED_PARAMETERS } from '../request/request-parameters.ts';
import type { CompletionWarning } from '../types.ts';

/**
 * Drops what the model cannot take, each with a warning (an error under strict, raised by `warn`), so that
 * switching models keeps working: the parameters a catalog flag rules out, and image parts for a model without
 * image input. `body` is the call's own copy; its messages are copied only when a part is dropped.
 */
export function gateModelSupport(
  body: Record<string, unknown>,
  model: ModelEntry,
  warn: (warning: CompletionWarning) => void,
): void {
  for (const [param, flag] of GATED_PARAMETERS) {
    if (body[param] == null || model.supports[flag]) continue;
    warn({
      code: 'unsupported_parameter',
      param,
      message: `${model.id} does not support "${param}"; it was not sent.`,
    });
    delete body[param];
  }
  if (!model.supports.image_output) dropImageOutput(body, model, warn);
  if (!model.supports.images) body.messages = withoutImages(body.messages as ChatCompletionMessageParam[], model, warn);
}

function withoutImages(
  messages: ChatCompletionMessageParam[],
  model: ModelEntry,
  warn: (warning: CompletionWarning) => void,
): ChatCompletionMessageParam[] {
  const hasImage = (message: ChatCompletionMessageParam) =>
    Array.isArray(message.content) && message.content.some((part) => part.type === 'image_url');
  if (!messages.some(hasImage)) return messages;
  return messages.map((message, index) => {
    if (!hasImage(message)) return message;
    warn({
      code: 'unsupported_content',
      param: `messages[${index}].content`,
      message: `${model.id} does not take images; the image parts of messages[${index}] were not sent.`,
    });
    const parts = (message.content as Array<{ type: string }>).filter((part) => part.type !== 'image_url');
    return { ...message, content: parts } as ChatCompletionMessageParam;
  });
}

/** `modalities` asking for images from a model that answers only in text (or audio): "image" is dropped. */
function dropImageOutput(
  body: Record<string, unknown>,
  model: ModelEntry,
  warn: (warning: CompletionWarning) => void,
): void {
  dropImageModality(body, `${model.id} does not answer with images in chat`, warn);
}

/**
 * "image" taken out of `body.modalities`, saying `why` (an error under strict, raised by `warn`); nothing when it
 * does not ask for images.
 */
export function dropImageModality(
  body: Record<string, unknown>,
  why: string,
  warn: (warning: CompletionWarning) => void,
): void {
  const modalities = body.modalities;
  if (!Array.isArray(modalities) || !modalities.includes('image')) return;
  warn({
    code: 'unsupported_parameter',
    param: 'modalities',
    message: `${why}; "image" was dropped from "modalities".`,
  });
  const rest = modalities.filter((modality) => modality !== 'image');
  // Text alone is every model's default: nothing left to ask for, nothing sent (and no second warning).
  if (rest.length === 0 || (rest.length === 1 && rest[0] === 'text')) delete body.modalities;
  else body.modalities = rest;
}
