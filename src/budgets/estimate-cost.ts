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
 * `max_tokens` asked for (without one, the prompt only). Output is held at most at what a model can write: a
 * `max_tokens` past it (adapters lower it, or the provider refuses) would hold tokens no answer can cost. A call
 * asking for images holds its output at the image price. A candidate whose price is not known costs nothing here,
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
  const drawing = Array.isArray(body.modalities) && body.modalities.includes('image');
  let usd = 0;
  let mostWritten = 0;
  for (const { model, offering } of candidates) {
    const written = Math.min(asked ?? model.max_output_tokens, model.max_output_tokens);
    mostWritten = Math.max(mostWritten, written);
    const output = written * choices;
    // A call asking for images may spend every output token on them, at their price where it is the dearer.
    const images = drawing && (offering.pricing?.output_image ?? 0) > (offering.pricing?.output ?? 0) ? output : 0;
    const usage = { prompt_tokens: prompt, completion_tokens: output };
    const cost = computeCost(
      images ? { ...usage, completion_tokens_details: { image_tokens: images } } : usage,
      offering.pricing,
    );
    usd = Math.max(usd, cost ?? 0);
  }
  // Without candidates (none known) the asked `max_tokens` stands.
  const heldOutput = asked === undefined ? 0 : candidates.length > 0 ? mostWritten : asked;
  return { usd: usd * completions, tokens: (prompt + heldOutput * choices) * completions };
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
