import type { ModelEntry } from './catalog/catalog-schema.ts';
import { OPENAI_EFFORTS } from './completion/request-parameters.ts';
import { InvalidRequestError } from './errors.ts';
import type { ResolvedReasoning } from './providers/provider.ts';
import type { CompletionRequest, ReasoningEffortLevel } from './types.ts';

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

/**
 * The request's reasoning setting in both forms, or `undefined` when it sets none.
 * `reasoning` and `reasoning_effort` together must agree; a model without reasoning rejects both.
 */
export function resolveReasoning(request: CompletionRequest, model: ModelEntry): ResolvedReasoning | undefined {
  const { reasoning, reasoning_effort: openAIEffort } = request;
  if (reasoning == null && openAIEffort == null) return undefined;
  const max = model.max_output_tokens;
  // OpenAI's "none" is our "disabled"; only a model that can stop reasoning takes it as a plain parameter.
  const compatEffort = openAIEffort === 'none' ? 'disabled' : openAIEffort;
  if (openAIEffort === 'none' && model.supports.reasoning && !model.supports.reasoning_can_disable) {
    throw new InvalidRequestError(
      `${model.id} cannot switch reasoning off, so reasoning_effort "none" cannot be honoured. Send reasoning: ` +
        '{ effort: "disabled" } to get its lowest effort with a warning, or choose a level.',
      'reasoning_effort',
      'reasoning_not_disabled',
    );
  }

  let resolved: ResolvedReasoning;
  if (reasoning?.budget !== undefined)
    resolved = { budget: reasoning.budget, effort: budgetToEffort(reasoning.budget, max) };
  else {
    const effort = (reasoning?.effort ?? compatEffort) as ReasoningEffortLevel;
    resolved = { effort, budget: effortToBudget(effort, max) };
  }
  if (reasoning != null && compatEffort != null && resolved.effort !== compatEffort) {
    throw new InvalidRequestError(
      `reasoning (${JSON.stringify(reasoning)}, which is "${resolved.effort}" on ${model.id}) and reasoning_effort ` +
        `"${compatEffort}" disagree. Send one of them.`,
      'reasoning',
    );
  }
  if (!model.supports.reasoning) {
    throw new InvalidRequestError(
      `${model.id} does not reason, so "reasoning"/"reasoning_effort" cannot apply. Remove it, or pick a model from ` +
        `listModels({ reasoning: true }).`,
      'reasoning',
      'reasoning_not_supported',
    );
  }
  return resolved;
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
