import type { RecordUsage } from './call-record.ts';

/** A provider offering's prices, USD per 1M tokens (the catalog's `pricing`). */
export interface TokenPricing {
  input: number;
  output: number;
  /** Cache-hit input tokens; equal to `input` where the provider gives no discount. */
  cached_input: number;
}

/** One completion's usage and the price of the offering that produced it. */
export interface BilledUsage {
  usage: UsageLike | null | undefined;
  pricing: TokenPricing | null | undefined;
}

/** The OpenAI usage object as the adapters normalise it, or a record's usage. Every field may be missing. */
export interface UsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  reasoning_tokens?: number | null;
  cached_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

export const ZERO_USAGE: Readonly<RecordUsage> = Object.freeze({
  prompt_tokens: 0,
  completion_tokens: 0,
  reasoning_tokens: 0,
  cached_tokens: 0,
});

/**
 * The four counts the records keep. Every adapter reports OpenAI's convention: `prompt_tokens` includes the cached
 * tokens (Anthropic's cache reads and writes are added in), `completion_tokens` includes the reasoning tokens
 * (Gemini's candidates + thoughts). Missing, negative or non-finite counts become 0.
 */
export function normalizeUsage(usage: UsageLike | null | undefined): RecordUsage {
  if (!usage) return { ...ZERO_USAGE };
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const cached = count(usage.prompt_tokens_details?.cached_tokens ?? usage.cached_tokens);
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens ?? usage.reasoning_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    // A provider that reports more cached than prompt tokens would otherwise get a negative uncached bill.
    cached_tokens: Math.min(cached, prompt),
    reasoning_tokens: Math.min(reasoning, completion),
  };
}

/**
 * USD for one completion: uncached input at `input`, cached input at `cached_input`, completion tokens (reasoning
 * included) at `output`; prices are per 1M tokens. Rounded to 1e-9 USD; unknown usage or prices cost 0.
 */
export function computeCost(usage: UsageLike | null | undefined, pricing: TokenPricing | null | undefined): number {
  return roundUsd(rawCost(normalizeUsage(usage), pricing));
}

/** USD for a call that took several completions, each at the price of the offering that served it. */
export function computeTotalCost(billed: readonly BilledUsage[]): number {
  let total = 0;
  for (const { usage, pricing } of billed) total += rawCost(normalizeUsage(usage), pricing);
  return roundUsd(total);
}

/** The counts of several completions added up. */
export function sumUsage(usages: ReadonlyArray<UsageLike | null | undefined>): RecordUsage {
  const total = { ...ZERO_USAGE };
  for (const usage of usages) {
    const part = normalizeUsage(usage);
    total.prompt_tokens += part.prompt_tokens;
    total.completion_tokens += part.completion_tokens;
    total.reasoning_tokens += part.reasoning_tokens;
    total.cached_tokens += part.cached_tokens;
  }
  return total;
}

/** Rounds to the nano-dollar, so sums of records compare equal wherever they are added up. */
export function roundUsd(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.round(value * 1e9) / 1e9;
}

function rawCost(usage: RecordUsage, pricing: TokenPricing | null | undefined): number {
  if (!pricing) return 0;
  const uncached = usage.prompt_tokens - usage.cached_tokens;
  const cost =
    uncached * price(pricing.input) +
    usage.cached_tokens * price(pricing.cached_input) +
    usage.completion_tokens * price(pricing.output);
  return Number.isFinite(cost) ? cost / 1_000_000 : 0;
}

function price(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
