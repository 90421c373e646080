import type Anthropic from '@anthropic-ai/sdk';
import type { CompletionMessage, ReasoningDetail } from '../../types.ts';
import type { ProviderCompletion } from '../provider.ts';
import { CLAUDE_REASONING_FORMAT as FORMAT } from '../reasoning-format.ts';
import { refusalText, toFinishReason } from './map-stop-reason.ts';
import { toUsage } from './map-usage.ts';

/** A whole Anthropic message as an OpenAI chat completion. */

export function toCompletion(message: Anthropic.Message): ProviderCompletion {
  const texts: string[] = [];
  const thinking: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: NonNullable<CompletionMessage['tool_calls']> = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') {
      thinking.push(block.thinking);
      details.push({ type: 'reasoning.text', format: FORMAT, text: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking')
      details.push({ type: 'reasoning.encrypted', format: FORMAT, data: block.data });
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const text = texts.length > 0 ? texts.join('') : null;
  const refused = message.stop_reason === 'refusal';
  const result: CompletionMessage = {
    role: 'assistant',
    content: refused ? null : text,
    refusal: refused ? refusalText(message.stop_details, text) : null,
  };
  if (toolCalls.length > 0) result.tool_calls = toolCalls;
  if (thinking.some((part) => part !== '')) result.reasoning_content = thinking.join('');
  if (details.length > 0) result.reasoning_details = details;
  return {
    id: message.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: message.model,
    choices: [{ index: 0, message: result, finish_reason: toFinishReason(message.stop_reason), logprobs: null }],
    usage: toUsage(message.usage),
  };
}
