/**
 * The reasoning scale every layer shares: the effort levels (ours and OpenAI's), a level and a token budget each in
 * terms of the other, and the nearest level a model takes. Pure, and importing nothing: the request types, the
 * catalog, the parameter table and the providers all stand on it.
 */

/** `reasoning.effort`: `disabled` switches reasoning off; the others are levels, lowest first. */
export const EFFORTS = ['disabled', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
type Level = Exclude<(typeof EFFORTS)[number], 'disabled'>;
/** `reasoning_effort` as OpenAI clients send it (openai-node's `ReasoningEffort`), lowest first: `none`, the levels. */
export const OPENAI_EFFORTS: ReadonlyArray<'none' | Level> = [
  'none',
  ...EFFORTS.filter((effort): effort is Level => effort !== 'disabled'),
];

/** `disabled` switches reasoning off; the others are levels, lowest first (OpenAI's names). */
export type ReasoningEffortLevel = (typeof EFFORTS)[number];

/** A call's reasoning in both forms, as resolved for its model. */
export interface ResolvedReasoning {
  effort: ReasoningEffortLevel;
  /** Thinking tokens; 0 when disabled. */
  budget: number;
}

/**
 * Share of the model's maximum output tokens each effort stands for; minimal, xhigh and max, the levels OpenAI added
 * after low, medium and high, continue the scale.
 */
const EFFORT_SHARE = { minimal: 0.1, low: 0.2, medium: 0.5, high: 0.8, xhigh: 0.9, max: 1 } as const;

/** Effort → thinking budget in tokens, relative to the model's maximum output tokens. `disabled` is 0. */
export function effortToBudget(effort: ReasoningEffortLevel, maxOutputTokens: number): number {
  return effort === 'disabled' ? 0 : Math.round(maxOutputTokens * EFFORT_SHARE[effort]);
}

/** Thinking budget → effort: 0 is disabled, up to 20 % low, up to 50 % medium, above that high. */
export function budgetToEffort(budget: number, maxOutputTokens: number): ReasoningEffortLevel {
  if (budget <= 0) return 'disabled';
  if (budget <= maxOutputTokens * EFFORT_SHARE.low) return 'low';
  if (budget <= maxOutputTokens * EFFORT_SHARE.medium) return 'medium';
  return 'high';
}

/** Every effort and level name providers use, lowest first: OpenAI's efforts. */
const EFFORT_ORDER: readonly string[] = OPENAI_EFFORTS;

/**
 * The level a model accepts that is nearest to the one wanted. On a tie the higher level wins: thinking more than
 * asked beats silently thinking less.
 */
export function closestEffortLevel(levels: readonly string[], wanted: string): string {
  if (levels.includes(wanted)) return wanted;
  const rank = (level: string) => EFFORT_ORDER.indexOf(level);
  let best = levels[levels.length - 1]!;
  for (const level of levels) {
    const distance = Math.abs(rank(level) - rank(wanted));
    const bestDistance = Math.abs(rank(best) - rank(wanted));
    if (distance < bestDistance || (distance === bestDistance && rank(level) > rank(best))) best = level;
  }
  return best;
}
