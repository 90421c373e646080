import type { ContentBlock, ConverseResponse, StopReason, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { CompletionMessage, ReasoningDetail } from '../../types.ts';
import { toUsage, type UsageWithCacheWrites } from '../anthropic/map-usage.ts';
import type { ProviderCompletion } from '../provider.ts';
import { CLAUDE_REASONING_FORMAT as CLAUDE_REASONING } from '../reasoning-format.ts';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** Converse's stop reasons in OpenAI's terms. */
export function toFinishReason(reason: StopReason | string | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Converse's usage: input tokens leave the cached part out, as Anthropic's do. */
export function usageOf(usage: TokenUsage | undefined): UsageWithCacheWrites {
  return toUsage({
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    cache_read_input_tokens: usage?.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: usage?.cacheWriteInputTokens ?? 0,
  });
}

/** A Converse answer as an OpenAI chat completion; Claude's thinking kept with its signature for the tool loop. */
export function toCompletion(response: ConverseResponse, model: string, id: string): ProviderCompletion {
  const message: CompletionMessage = { role: 'assistant', content: null, refusal: null };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: ChatCompletionMessageToolCall[] = [];
  for (const block of (response.output?.message?.content ?? []) as ContentBlock[]) {
    if (block.text !== undefined) texts.push(block.text);
    else if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId ?? `call_${toolCalls.length}`,
        type: 'function',
        function: { name: block.toolUse.name ?? '', arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
    } else if (block.reasoningContent?.reasoningText) {
      const { text = '', signature } = block.reasoningContent.reasoningText;
      reasoning.push(text);
      details.push({ type: 'reasoning.text', format: CLAUDE_REASONING, text, ...(signature ? { signature } : {}) });
    } else if (block.reasoningContent?.redactedContent) {
      const data = Buffer.from(block.reasoningContent.redactedContent).toString('base64');
      details.push({ type: 'reasoning.encrypted', format: CLAUDE_REASONING, data });
    }
  }
  if (texts.length > 0) message.content = texts.join('');
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  if (details.length > 0) message.reasoning_details = details;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toFinishReason(response.stopReason) }],
    usage: usageOf(response.usage),
  };
}
