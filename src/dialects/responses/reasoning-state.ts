import { textFromBase64, toBase64 } from '../../internal/bytes.ts';
import type { ReasoningDetail } from '../../types.ts';

/**
 * A Responses API reasoning item carries the provider's reasoning state as `encrypted_content`, opaque to the
 * client, which sends the item back in the next turn. Switchyard puts its reasoning details there (Claude's thinking
 * signatures, Gemini's thought signatures), so a stateless tool loop keeps them as it does in chat.
 */
const PREFIX = 'switchyard.v1.';

export function encodeReasoningState(details: readonly ReasoningDetail[] | undefined): string | null {
  if (!details?.length) return null;
  return PREFIX + toBase64(JSON.stringify(details), true);
}

/** The details of a state this gateway made; anything else (another gateway's, tampered) holds none. */
export function decodeReasoningState(state: string | null | undefined): ReasoningDetail[] {
  if (typeof state !== 'string' || !state.startsWith(PREFIX)) return [];
  try {
    const value: unknown = JSON.parse(textFromBase64(state.slice(PREFIX.length)));
    if (!Array.isArray(value)) return [];
    return value.filter(
      (detail): detail is ReasoningDetail =>
        typeof detail === 'object' &&
        detail !== null &&
        typeof detail.type === 'string' &&
        typeof detail.format === 'string',
    );
  } catch {
    return [];
  }
}
