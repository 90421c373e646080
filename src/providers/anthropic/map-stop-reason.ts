import type Anthropic from '@anthropic-ai/sdk';

/** Anthropic's stop reasons in OpenAI's terms. */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export function toFinishReason(reason: Anthropic.StopReason | null): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, and pause_turn (a server-tool turn Anthropic paused; OpenAI has no equivalent).
      return 'stop';
  }
}

export function refusalText(details: Anthropic.RefusalStopDetails | null, text: string | null): string {
  return (
    details?.explanation ?? text ?? `The model declined to answer${details?.category ? ` (${details.category})` : ''}.`
  );
}
