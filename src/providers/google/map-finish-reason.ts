/** Gemini's finish reasons in OpenAI's terms. */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
]);

/** Gemini's finishReason in OpenAI terms; Gemini has no tool-call reason, so a function call makes it `tool_calls`. */
export function toFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason && FILTERED.has(reason)) return 'content_filter';
  if (reason === 'MAX_TOKENS' || reason === 'CONTINUATION') return 'length';
  return hasToolCalls ? 'tool_calls' : 'stop';
}
