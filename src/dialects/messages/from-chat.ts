import type Anthropic from '@anthropic-ai/sdk';
import { CLAUDE_REASONING_FORMAT as CLAUDE_REASONING } from '../../providers/reasoning-format.ts';
import type { CompletionResponse, CompletionWarning, ReasoningDetail, SwitchyardResponseInfo } from '../../types.ts';

/** A Messages API answer, with Switchyard's routing facts beside it as in chat. */
export type SwitchyardMessage = Anthropic.Message & { switchyard: SwitchyardResponseInfo };

/**
 * A chat completion as the Messages API answers: thinking, text and tool calls as content blocks, in that order.
 * Without `thinkingText`, thinking blocks carry their signatures only, and unsigned reasoning is left out.
 */
export function chatToMessage(response: CompletionResponse, thinkingText = true): SwitchyardMessage {
  const choice = response.choices[0];
  const message = choice?.message;
  const reasoning = thinkingText ? message?.reasoning_content : undefined;
  const content: Anthropic.ContentBlock[] = [...thinkingBlocks(message?.reasoning_details, reasoning, thinkingText)];
  const text = message?.content ?? message?.refusal;
  if (text) content.push({ type: 'text', text, citations: null });
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    content.push(toolUseBlock(call.id, call.function.name, call.function.arguments, response.switchyard.warnings));
  }
  return {
    id: messageId(response.switchyard.call_id),
    type: 'message',
    role: 'assistant',
    model: response.model,
    content,
    stop_reason: stopReason(choice?.finish_reason ?? null, message?.refusal),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: messageUsage(response.usage),
    switchyard: response.switchyard,
  } as SwitchyardMessage;
}

/** The Messages API id of a call: `msg_` and the call id, so the record of a message is found by it. */
export function messageId(callId: string): string {
  return `msg_${callId.replaceAll('-', '')}`;
}

/** Thinking as Claude gave it (with signatures), else the provider's reasoning text as one unsigned block. */
function thinkingBlocks(
  details: ReasoningDetail[] | undefined,
  reasoning: string | null | undefined,
  withText: boolean,
): Anthropic.ContentBlock[] {
  const own = (details ?? []).filter((detail) => detail.format === CLAUDE_REASONING);
  if (own.length === 0) return reasoning ? [{ type: 'thinking', thinking: reasoning, signature: '' }] : [];
  return own.map((detail) =>
    detail.type === 'reasoning.encrypted'
      ? { type: 'redacted_thinking', data: detail.data ?? '' }
      : { type: 'thinking', thinking: withText ? (detail.text ?? '') : '', signature: detail.signature ?? '' },
  );
}

/** A tool call as a `tool_use` block; arguments that are not a JSON object go as `{}`, with a warning. */
function toolUseBlock(id: string, name: string, args: string, warnings: CompletionWarning[]): Anthropic.ToolUseBlock {
  let input: unknown = {};
  try {
    input = args.trim() === '' ? {} : JSON.parse(args);
  } catch {
    input = undefined;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    warnings.push({
      code: 'converted_parameter',
      message: `The model's arguments for "${name}" are not a JSON object; the tool_use input is {}.`,
    });
    input = {};
  }
  return { type: 'tool_use', id, name, input, caller: { type: 'direct' } } as Anthropic.ToolUseBlock;
}

export function stopReason(finish: string | null, refusal?: string | null): Anthropic.StopReason | null {
  if (refusal) return 'refusal';
  switch (finish) {
    case null:
      return null;
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** Chat usage in the Messages API's terms: input tokens leave out the cache reads and writes counted apart. */
export function messageUsage(usage: CompletionResponse['usage']): Anthropic.Usage {
  const details = usage?.prompt_tokens_details as
    | { cached_tokens?: number; cache_write_tokens?: number; cache_write_1h_tokens?: number }
    | undefined;
  const read = details?.cached_tokens ?? 0;
  const written = details?.cache_write_tokens ?? 0;
  const hour = details?.cache_write_1h_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - read - written),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
    cache_creation: { ephemeral_5m_input_tokens: written - hour, ephemeral_1h_input_tokens: hour },
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
    speed: null,
  } as Anthropic.Usage;
}
