import { estimatePromptTokens } from '../internal/estimate-tokens.ts';

/** What a call needs of a model's context window: its prompt (estimated) and the output it asks room for. */
export interface PromptSize {
  /** The prompt's tokens as `estimatePromptTokens` counts them. */
  readonly promptTokens: number;
  /** `max_completion_tokens`, else `max_tokens`, else 1: a model must have room to write at least one token. */
  readonly outputTokens: number;
  /** Whether `outputTokens` is the caller's (a `max_tokens`), not the least a model needs. */
  readonly outputAsked: boolean;
}

/**
 * The estimate (four ASCII characters a token, one for any other) is off by a fair margin either way: code and
 * numbers run denser, accented text and small images sparser. A candidate is skipped only when three quarters of the
 * estimate plus the output asked for still exceed its window, so a prompt that might fit is always sent; a provider
 * that then refuses it (`context_length_exceeded`) moves the call on all the same.
 */
const CERTAIN_SHARE = 0.75;

export function promptSizeOf(body: Readonly<Record<string, unknown>>): PromptSize {
  const asked = positive(body.max_completion_tokens) ?? positive(body.max_tokens);
  return { promptTokens: estimatePromptTokens(body), outputTokens: asked ?? 1, outputAsked: asked !== undefined };
}

/** Why the prompt cannot fit `model`'s window, or `undefined` when it may. */
export function contextTooLong(model: { id: string; context_window: number }, size: PromptSize): string | undefined {
  const needed = Math.ceil(size.promptTokens * CERTAIN_SHARE) + size.outputTokens;
  if (needed <= model.context_window) return undefined;
  return (
    `The prompt (about ${size.promptTokens} tokens) and ${size.outputTokens} output tokens do not fit ` +
    `${model.id}'s context window of ${model.context_window} tokens; the candidate was skipped.`
  );
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
