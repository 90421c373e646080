import type { ModelEntry } from '../catalog/catalog-schema.ts';
import { InvalidRequestError } from '../errors.ts';
import { budgetToEffort, effortToBudget, type ResolvedReasoning } from '../reasoning.ts';
import type { CompletionRequest, ReasoningEffortLevel } from '../types.ts';

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
