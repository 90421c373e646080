import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';

/** Maps every tool-call id to nine letters and digits, the same way each time so calls and results still pair up. */
export function rewriteToolCallIds(
  messages: ChatCompletionCreateParamsBase['messages'],
): ChatCompletionCreateParamsBase['messages'] {
  const valid = /^[a-zA-Z0-9]{9}$/;
  const shorten = (id: string): string => (valid.test(id) ? id : nineCharId(id));
  return messages.map((message) => {
    if (message.role === 'tool') return { ...message, tool_call_id: shorten(message.tool_call_id) };
    if (message.role === 'assistant' && message.tool_calls) {
      return {
        ...message,
        tool_calls: message.tool_calls.map((toolCall) => ({ ...toolCall, id: shorten(toolCall.id) })),
      };
    }
    return message;
  });
}

function nineCharId(id: string): string {
  // FNV-1a over the id, written in base 36 and padded: deterministic, no crypto needed for a correlation id.
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193) >>> 0;
  let second = hash ^ id.length;
  for (let index = id.length - 1; index >= 0; index--)
    second = Math.imul(second ^ id.charCodeAt(index), 0x01000193) >>> 0;
  return (hash.toString(36) + second.toString(36)).padEnd(9, '0').slice(0, 9);
}
