import type { GenerateContentResponse, Part } from '@google/genai';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { CompletionImage, CompletionMessage, ReasoningDetail } from '../../types.ts';
import type { ProviderCompletion } from '../provider.ts';

import { inlineImagesOf } from './inline-images.ts';
import { toFinishReason } from './map-finish-reason.ts';
import { toUsage } from './map-usage.ts';

/** A whole `GenerateContentResponse` as an OpenAI chat completion, part by part. */

/** Why Gemini refused to look at the prompt, for `message.refusal`. */
export function blockedPromptMessage(response: GenerateContentResponse): string | undefined {
  const feedback = response.promptFeedback;
  if (!feedback?.blockReason) return undefined;
  return (
    `Gemini blocked the prompt ` +
    `(${feedback.blockReason})${feedback.blockReasonMessage ? `: ${feedback.blockReasonMessage}` : '.'}`
  );
}

export function synthesizedId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** What one part means in OpenAI terms. */
type PartEvent =
  | { kind: 'reasoning'; text: string; detail?: ReasoningDetail }
  | { kind: 'content'; text: string; detail?: ReasoningDetail }
  | { kind: 'tool_call'; call: { id: string; name: string; arguments: string }; detail?: ReasoningDetail }
  | { kind: 'signature'; detail: ReasoningDetail }
  | { kind: 'image'; image: CompletionImage; detail?: ReasoningDetail }
  | { kind: 'unsupported'; what: string };

export function toPartEvent(part: Part): PartEvent {
  const signature = part.thoughtSignature;
  const detail = (toolCallId?: string): { detail?: ReasoningDetail } =>
    signature
      ? {
          detail: {
            type: 'reasoning.encrypted',
            format: 'google',
            signature,
            ...(toolCallId !== undefined ? { tool_call_id: toolCallId } : {}),
          },
        }
      : {};
  if (part.functionCall) {
    const id = part.functionCall.id || synthesizedId('call_');
    return {
      kind: 'tool_call',
      call: { id, name: part.functionCall.name ?? '', arguments: JSON.stringify(part.functionCall.args ?? {}) },
      ...detail(id),
    };
  }
  if (typeof part.text === 'string' && (part.text !== '' || !signature)) {
    return { kind: part.thought ? 'reasoning' : 'content', text: part.text, ...detail() };
  }
  // An image model's picture (responseModalities IMAGE): a data URL, as OpenRouter and LiteLLM answer them.
  const [image] = inlineImagesOf([part]);
  if (image) {
    const url = `data:${image.mimeType};base64,${image.data}`;
    return { kind: 'image', image: { type: 'image_url', image_url: { url } }, ...detail() };
  }
  if (signature) return { kind: 'signature', detail: detail().detail! };
  const what = Object.keys(part).find((key) => (part as Record<string, unknown>)[key] != null) ?? 'empty';
  return { kind: 'unsupported', what };
}

/** A whole `GenerateContentResponse` as an OpenAI chat completion. */
export function toCompletion(
  response: GenerateContentResponse,
  model: string,
  onDropped: (what: string) => void,
): ProviderCompletion {
  const candidates = response.candidates ?? [];
  const choices: ProviderCompletion['choices'] = candidates.map((candidate, position) => {
    const message: CompletionMessage = { role: 'assistant', content: null, refusal: null };
    let content: string | undefined;
    let reasoning: string | undefined;
    const toolCalls: ChatCompletionMessageToolCall[] = [];
    const images: CompletionImage[] = [];
    const details: ReasoningDetail[] = [];
    for (const part of candidate.content?.parts ?? []) {
      const event = toPartEvent(part);
      if (event.kind === 'unsupported') {
        onDropped(event.what);
        continue;
      }
      if (event.detail) details.push(event.detail);
      if (event.kind === 'reasoning') reasoning = (reasoning ?? '') + event.text;
      else if (event.kind === 'content') content = (content ?? '') + event.text;
      else if (event.kind === 'image') images.push(event.image);
      else if (event.kind === 'tool_call')
        toolCalls.push({
          id: event.call.id,
          type: 'function',
          function: { name: event.call.name, arguments: event.call.arguments },
        });
    }
    if (content !== undefined) message.content = content;
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (images.length > 0) message.images = images;
    if (details.length > 0) message.reasoning_details = details;
    return {
      index: candidate.index ?? position,
      message,
      logprobs: null,
      finish_reason: toFinishReason(candidate.finishReason, toolCalls.length > 0),
    };
  });
  const blocked = candidates.length === 0 ? blockedPromptMessage(response) : undefined;
  if (blocked) {
    choices.push({
      index: 0,
      message: { role: 'assistant', content: null, refusal: blocked },
      logprobs: null,
      finish_reason: 'content_filter',
    });
  }
  const usage = toUsage(response.usageMetadata);
  return {
    id: response.responseId || synthesizedId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices,
    ...(usage ? { usage } : {}),
  };
}
