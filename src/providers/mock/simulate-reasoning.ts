import { sha256 } from '../../internal/sha256.ts';
import type { ReasoningDetail } from '../../types.ts';
import type { ReasoningForm } from '../provider.ts';
import { tokensOf } from './shape-answer.ts';
import type { MockMessage } from './simulator.ts';

/**
 * The answer's reasoning as the provider stood in for gives it (`form`, from its request conversion), so that what
 * a client keeps and sends back is what production sends: Claude's thinking with a signature, Gemini's thoughts
 * with a thought signature, OpenAI's reasoning not at all (counted in usage only). A scripted reply's own reasoning
 * is what the provider answered: it is signed as the provider signs, never taken away.
 */
export function reasoningAsGiven(
  message: MockMessage,
  form: ReasoningForm | undefined,
  generated: boolean,
  choices: number,
): MockMessage {
  const text = message.reasoning_content;
  if (text === undefined || message.reasoning_details !== undefined || !form || form.kind === 'text') return message;
  if (form.kind === 'hidden') {
    if (!generated) return message;
    const { reasoning_content: _hidden, ...shown } = message;
    const reasoningTokens = message.usage?.reasoning_tokens ?? tokensOf(text) * choices;
    return { ...shown, usage: { ...message.usage, reasoning_tokens: reasoningTokens } };
  }
  const signature = simulatedSignature(form.format, text);
  const detail: ReasoningDetail =
    form.kind === 'signed-text'
      ? { type: 'reasoning.text', format: form.format, text, signature }
      : { type: 'reasoning.encrypted', format: form.format, signature };
  return { ...message, reasoning_details: [detail] };
}

/** A signature as opaque as a provider's (base64), and the same for the same reasoning: answers stay deterministic. */
function simulatedSignature(format: string, text: string): string {
  const digest = sha256(`${format}\n${text}`);
  return btoa(`simulated:${String.fromCharCode(...digest)}`);
}
