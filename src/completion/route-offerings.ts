import type { ProviderOffering } from '../catalog/catalog-schema.ts';
import { computeCost } from '../records/compute-cost.ts';
import type { PromptSize } from './context-fit.ts';
import type { LatencyTracker } from './latency-tracker.ts';

/** How a model's offerings are ordered: as the catalog lists them, cheapest first, or fastest observed first. */
export type Routing = 'order' | 'cost' | 'latency';

/** The output a call is priced with when it asks for no limit: a typical answer's length, not the model's most. */
const TYPICAL_OUTPUT_TOKENS = 1_000;

/**
 * One model's offerings in the order they are tried. `cost`: by what this call would cost at each offering's price
 * (its estimated prompt and the output it asks for); `latency`: by the gateway's moving estimate of each offering.
 * An offering with no price, or not yet observed, keeps its catalog place after those that have one: the sort is
 * stable, so equal ranks keep the catalog's order too.
 */
export function routeOfferings(
  offerings: readonly ProviderOffering[],
  routing: Routing,
  size: PromptSize,
  latency: LatencyTracker,
): readonly ProviderOffering[] {
  if (routing === 'order' || offerings.length < 2) return offerings;
  const rankOf =
    routing === 'cost'
      ? (offering: ProviderOffering) => costOf(offering, size)
      : (offering: ProviderOffering) => latency.estimate(offering.provider, offering.model);
  const ranked = offerings.map((offering) => ({ offering, rank: rankOf(offering) ?? Number.POSITIVE_INFINITY }));
  return ranked
    .sort((left, right) => (left.rank === right.rank ? 0 : left.rank - right.rank))
    .map(({ offering }) => offering);
}

function costOf(offering: ProviderOffering, size: PromptSize): number | undefined {
  const output = size.outputAsked ? size.outputTokens : TYPICAL_OUTPUT_TOKENS;
  return computeCost({ prompt_tokens: size.promptTokens, completion_tokens: output }, offering.pricing) ?? undefined;
}
