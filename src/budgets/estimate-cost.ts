import { estimatePromptTokens } from '../internal/estimate-tokens.ts';
import { computeCost, type TokenPricing } from '../records/compute-cost.ts';
import type { WorstCost } from './budget-ledger.ts';

/** One model and price a call may be served by (a candidate: the model's offerings, then its fallbacks'). */
export interface PricedModel {
  model: { max_output_tokens: number };
  offering: { pricing?: TokenPricing | undefined };
}

/**
 * The most a call may cost, held against its budgets until it ends: the prompt's estimated tokens plus every output
 * token it may produce (`max_completion_tokens`, `max_tokens`, else the model's most), times `n`, at the dearest
 * candidate; twice over when a structured answer may need a correction. Token limits hold the prompt and the
 * `max_tokens` asked for (without one, the prompt only). A candidate whose price is not known costs nothing here,
 * as it is charged nothing after.
 */
export function worstCost(
  body: Readonly<Record<string, unknown>>,
  candidates: readonly PricedModel[],
  options: { corrections?: number } = {},
): WorstCost {
  const prompt = estimatePromptTokens(body);
  const choices = positive(body.n) ?? 1;
  const asked = positive(body.max_completion_tokens) ?? positive(body.max_tokens);
  const completions = 1 + (options.corrections ?? 0);
  let usd = 0;
  for (const { model, offering } of candidates) {
    const output = (asked ?? model.max_output_tokens) * choices;
    const cost = computeCost({ prompt_tokens: prompt, completion_tokens: output }, offering.pricing);
    usd = Math.max(usd, cost ?? 0);
  }
  return { usd: usd * completions, tokens: (prompt + (asked ?? 0) * choices) * completions };
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
