import type { UsageLike } from '../records/compute-cost.ts';
import type { CompletionChunk } from '../types.ts';

/** The longest tail of the partial answer a continuation is checked for repeating (characters). */
const OVERLAP_BOUND = 200;
/** A shorter repeat is as likely to be the answer going on (`"the"` after `"the"`): left alone. */
const MIN_OVERLAP = 12;

/**
 * Makes the chunks of a continuation part of the first stream: the first stream's `id` and `created`, no second
 * role chunk, the start of the continued text held until it can be checked for repeating the partial answer's tail
 * (bounded), and the usage of the broken attempts added to the continuation's own.
 */
export class StreamSplice {
  #identity: { id: string; created: number } | undefined;
  #earlier: UsageLike | undefined;
  /** The partial answer the continuation goes on from, while its start is still being checked. */
  #partial: string | undefined;
  #held: CompletionChunk | undefined;
  #heldText = '';

  /** The usage of every broken attempt so far: billed already, and added to the caller's usage chunk. */
  get earlier(): UsageLike | undefined {
    return this.#earlier;
  }

  /** A continuation starts after `partial` was relayed; `usage` is what the broken attempt consumed. */
  continueFrom(partial: string, usage: UsageLike): void {
    this.#earlier = this.#earlier ? sumUsage(this.#earlier, usage) : usage;
    this.#partial = partial;
    this.#held = undefined;
    this.#heldText = '';
  }

  /**
   * The chunks to relay for one provider chunk (none while the continuation's start is held); the chunk itself, no
   * array, while there is no continuation (every chunk of most streams).
   */
  pass(chunk: CompletionChunk): CompletionChunk | CompletionChunk[] {
    this.#identity ??= { id: chunk.id, created: chunk.created };
    if (this.#earlier === undefined) return chunk;
    Object.assign(chunk, this.#identity);
    if (chunk.usage) chunk.usage = sumUsage(this.#earlier, chunk.usage) as typeof chunk.usage;
    for (const choice of chunk.choices) delete choice.delta.role;
    const choice = chunk.choices[0];
    const onlyText =
      this.#partial !== undefined &&
      chunk.choices.length === 1 &&
      choice?.finish_reason == null &&
      !chunk.usage &&
      !choice?.delta.tool_calls?.length &&
      !choice?.delta.images?.length &&
      !choice?.delta.reasoning_content;
    if (onlyText && choice) {
      this.#heldText += choice.delta.content ?? '';
      this.#held ??= chunk;
      if (this.#heldText.length < Math.min(this.#partial?.length ?? 0, OVERLAP_BOUND)) return [];
    }
    const out = this.flush();
    if (!onlyText && !isEmpty(chunk)) out.push(chunk);
    return out;
  }

  /** The held start of the continuation, its repeat of the partial answer cut (at its end, or before anything else). */
  flush(): CompletionChunk[] {
    const held = this.#held;
    const partial = this.#partial;
    this.#partial = undefined;
    this.#held = undefined;
    if (!held || partial === undefined) return [];
    const text = withoutRepeat(partial, this.#heldText);
    const choice = held.choices[0];
    if (!choice || !text) return [];
    choice.delta.content = text;
    return [held];
  }
}

/** `text` without a start that repeats the end of `partial` (long enough to be a repeat, within the bound). */
export function withoutRepeat(partial: string, text: string): string {
  for (let length = Math.min(text.length, partial.length, OVERLAP_BOUND); length >= MIN_OVERLAP; length--) {
    if (partial.endsWith(text.slice(0, length))) return text.slice(length);
  }
  // A prefill is sent without its trailing space (Anthropic refuses one), so the model may write it again.
  return /\s$/.test(partial) ? text.replace(/^\s+/, '') : text;
}

function isEmpty(chunk: CompletionChunk): boolean {
  if (chunk.usage) return false;
  return chunk.choices.every(
    ({ delta, finish_reason }) =>
      finish_reason == null &&
      !delta.content &&
      !delta.reasoning_content &&
      !delta.refusal &&
      !delta.tool_calls?.length &&
      !delta.images?.length &&
      !delta.reasoning_details?.length,
  );
}

/**
 * Two usages added, field by field (nested details too); a field only one of them has is kept. `total_tokens` is
 * each side's own or its prompt plus completion: an estimate has none, and the sum must not keep the other's alone.
 */
export function sumUsage(a: UsageLike, b: UsageLike): UsageLike {
  return sumFields(withTotal(a), withTotal(b)) as UsageLike;
}

function withTotal(usage: UsageLike): Record<string, unknown> {
  const {
    total_tokens: total,
    prompt_tokens: prompt,
    completion_tokens: completion,
  } = usage as UsageLike & {
    total_tokens?: number | null;
  };
  if (typeof total === 'number' || typeof prompt !== 'number' || typeof completion !== 'number') return { ...usage };
  return { ...usage, total_tokens: prompt + completion };
}

function sumFields(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const sum: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = sum[key];
    if (typeof value === 'number' && typeof mine === 'number') sum[key] = mine + value;
    else if (isRecord(value) && isRecord(mine)) sum[key] = sumFields(mine, value);
    else if (value !== null && value !== undefined) sum[key] = value;
  }
  return sum;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
