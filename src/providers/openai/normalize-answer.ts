import { isPlainObject } from '../../internal/shape.ts';
import type { OpenAIFamilyQuirks } from './family.ts';

/**
 * Brings one choice to OpenAI's own form before it is checked: this provider's finish reasons and reasoning field
 * under OpenAI's names, nulls where OpenAI's types say "absent" removed (some providers write `tool_calls: null`),
 * and a missing message content or chunk finish reason written as the null it means. Anything else stays as sent,
 * for the check to judge.
 */
export function normalizeChoice(choice: unknown, field: 'message' | 'delta', quirks: OpenAIFamilyQuirks): void {
  if (!isPlainObject(choice)) return;
  // A chunk's finish_reason is always there in OpenAI's form, null until the last (the SDK writes it so too).
  if (field === 'delta' && choice.finish_reason === undefined) choice.finish_reason = null;
  const alias = quirks.finishReasonAliases?.[choice.finish_reason as string];
  if (alias) choice.finish_reason = alias;
  const message = choice[field];
  if (!isPlainObject(message)) return;
  const reasoning = quirks.reasoningField;
  if (reasoning && reasoning !== 'reasoning_content' && message[reasoning] !== undefined) {
    message.reasoning_content = message[reasoning];
    delete message[reasoning];
  }
  dropNulls(message, field === 'delta' ? DELTA_OPTIONALS : MESSAGE_OPTIONALS);
  // A message's content is always present in OpenAI's form: null when there is none (a tool call).
  if (field === 'message' && message.content === undefined) message.content = null;
  if (field !== 'delta' || !Array.isArray(message.tool_calls)) return;
  for (const toolCall of message.tool_calls) {
    if (!isPlainObject(toolCall)) continue;
    dropNulls(toolCall, TOOL_CALL_OPTIONALS);
    if (isPlainObject(toolCall.function)) dropNulls(toolCall.function, FUNCTION_OPTIONALS);
    if (isPlainObject(toolCall.custom)) dropNulls(toolCall.custom, CUSTOM_OPTIONALS);
  }
}

/**
 * Cache hits in OpenAI's field: DeepSeek counts them as `prompt_cache_hit_tokens` beside (or without) OpenAI's
 * `prompt_tokens_details.cached_tokens`.
 */
export function normalizeUsage(usage: unknown): void {
  if (!isPlainObject(usage) || typeof usage.prompt_cache_hit_tokens !== 'number') return;
  const details = isPlainObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  if (typeof details.cached_tokens !== 'number') {
    details.cached_tokens = usage.prompt_cache_hit_tokens;
    usage.prompt_tokens_details = details;
  }
}

// Fields OpenAI's types mark optional but not nullable.
const MESSAGE_OPTIONALS = ['tool_calls', 'function_call'];
const DELTA_OPTIONALS = ['role', 'tool_calls', 'function_call'];
const TOOL_CALL_OPTIONALS = ['id', 'type', 'function', 'custom'];
const FUNCTION_OPTIONALS = ['name', 'arguments'];
const CUSTOM_OPTIONALS = ['name', 'input'];

function dropNulls(record: Record<string, unknown>, keys: readonly string[]): void {
  for (let index = 0; index < keys.length; index++) if (record[keys[index]!] === null) delete record[keys[index]!];
}

export function arrayOrEmpty(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
