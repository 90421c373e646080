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

/**
 * Why Gemini's safety filter refused an answer, if it did: the prompt's block reason, or the first candidate's filtered
 * finish reason (an image or speech model answers 200 with nothing in it then).
 */
export function blockedBecause(answer: unknown): string | undefined {
  const { promptFeedback, candidates } = (answer ?? {}) as {
    promptFeedback?: { blockReason?: unknown };
    candidates?: Array<{ finishReason?: unknown } | null>;
  };
  if (typeof promptFeedback?.blockReason === 'string') return `prompt blocked: ${promptFeedback.blockReason}`;
  const reason = Array.isArray(candidates) ? candidates[0]?.finishReason : undefined;
  // IMAGE_OTHER is "another issue", not the filter's: a failure worth another try.
  return typeof reason === 'string' && FILTERED.has(reason) && reason !== 'IMAGE_OTHER'
    ? `finish reason ${reason}`
    : undefined;
}

/** Gemini's finishReason in OpenAI terms; Gemini has no tool-call reason, so a function call makes it `tool_calls`. */
export function toFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason && FILTERED.has(reason)) return 'content_filter';
  if (reason === 'MAX_TOKENS' || reason === 'CONTINUATION') return 'length';
  return hasToolCalls ? 'tool_calls' : 'stop';
}
