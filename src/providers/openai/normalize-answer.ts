import { isPlainObject } from '../../internal/shape.ts';
import type { OpenAIFamilyQuirks } from './family.ts';

/**
 * Brings one choice to OpenAI's own form before it is checked: this provider's finish reasons and reasoning field
 * under OpenAI's names, nulls where OpenAI's types say "absent" removed (some providers write `tool_calls: null`),
 * and a missing message content written as the null it means. Anything else stays as sent, for the check to judge.
 */
export function normalizeChoice(choice: unknown, field: 'message' | 'delta', quirks: OpenAIFamilyQuirks): void {
  if (!isPlainObject(choice)) return;
  const alias = quirks.finishReasonAliases?.[choice.finish_reason as string];
  if (alias) choice.finish_reason = alias;
  const message = choice[field];
  if (!isPlainObject(message)) return;
  const reasoning = quirks.reasoningField;
  if (reasoning && reasoning !== 'reasoning_content' && message[reasoning] !== undefined) {
    message.reasoning_content = message[reasoning];
    delete message[reasoning];
  }
  dropNulls(message, field === 'delta' ? ['role', 'tool_calls', 'function_call'] : ['tool_calls', 'function_call']);
  // A message's content is always present in OpenAI's form: null when there is none (a tool call).
  if (field === 'message' && message.content === undefined) message.content = null;
  if (field !== 'delta' || !Array.isArray(message.tool_calls)) return;
  for (const toolCall of message.tool_calls) {
    if (!isPlainObject(toolCall)) continue;
    dropNulls(toolCall, ['id', 'type', 'function']);
    if (isPlainObject(toolCall.function)) dropNulls(toolCall.function, ['name', 'arguments']);
  }
}

function dropNulls(record: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) if (record[key] === null) delete record[key];
}

export function arrayOrEmpty(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
