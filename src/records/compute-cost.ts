import type { CostBreakdown } from '../types.ts';
import type { RecordUsage } from './call-record.ts';

export type { CostBreakdown } from '../types.ts';

/** An offering's prices, USD per 1M tokens (the catalog's `pricing`). */
export interface TokenPricing {
  input: number;
  output: number;
  /** Cache reads (cache-hit input tokens); equal to `input` where the provider gives no discount. */
  cached_input: number;
  /** Cache writes with the provider's default time to live (Anthropic's 5 minutes: 1.25 × input). Default: `input`. */
  cache_write?: number | undefined;
  /** Cache writes kept for an hour (Anthropic: 2 × input). Default: `cache_write`. */
  cache_write_1h?: number | undefined;
  /**
   * Image tokens in the answer (Gemini's image models), where the provider prices them apart from text (Gemini 2.5
   * Flash Image: $30 against $2.50). Left out, an answer that reports image tokens costs `null`: never the text rate.
   */
  output_image?: number | undefined;
  /**
   * Prices for a request whose prompt is longer than `threshold` tokens: the whole request is billed at them (Gemini
   * 2.5 Pro and Claude Sonnet above 200k tokens). Fields left out keep the base price.
   */
  long_context?: LongContextPricing | undefined;
}

export interface LongContextPricing {
  /** Prompt tokens (cache reads and writes included) above which these prices apply. */
  threshold: number;
  input: number;
  output: number;
  cached_input?: number | undefined;
  cache_write?: number | undefined;
  cache_write_1h?: number | undefined;
}

/** One completion's usage and the price of the offering that produced it (`null`: the price is not known). */
export interface BilledUsage {
  usage: UsageLike | null | undefined;
  pricing: TokenPricing | null | undefined;
  /**
   * A cost already worked out in units other than tokens at one price (a media call's images, characters or
   * seconds): used as it is instead of `usage` × `pricing`; `null` when its price is not known.
   */
  fixed?: CostBreakdown | null | undefined;
}

/** The OpenAI usage object as the adapters normalise it, or a record's usage. Every field may be missing. */
export interface UsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  reasoning_tokens?: number | null;
  cached_tokens?: number | null;
  cache_write_tokens?: number | null;
  cache_write_1h_tokens?: number | null;
  prompt_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
    cache_write_1h_tokens?: number | null;
  } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null; image_tokens?: number | null } | null;
}

export const ZERO_USAGE: Readonly<RecordUsage> = Object.freeze({
  prompt_tokens: 0,
  completion_tokens: 0,
  reasoning_tokens: 0,
  cached_tokens: 0,
  cache_write_tokens: 0,
  cache_write_1h_tokens: 0,
});

/**
 * The counts the records keep. Every adapter reports OpenAI's convention: `prompt_tokens` includes the tokens read
 * from and written to a cache (Anthropic's are added in), `completion_tokens` includes the reasoning tokens
 * (Gemini's candidates + thoughts). Missing, negative or non-finite counts become 0, and no part exceeds its whole.
 */
export function normalizeUsage(usage: UsageLike | null | undefined): RecordUsage {
  if (!usage) return { ...ZERO_USAGE };
  const details = usage.prompt_tokens_details;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const cached = Math.min(count(details?.cached_tokens ?? usage.cached_tokens), prompt);
  const written = Math.min(count(details?.cache_write_tokens ?? usage.cache_write_tokens), prompt - cached);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    reasoning_tokens: Math.min(
      count(usage.completion_tokens_details?.reasoning_tokens ?? usage.reasoning_tokens),
      completion,
    ),
    cached_tokens: cached,
    cache_write_tokens: written,
    cache_write_1h_tokens: Math.min(count(details?.cache_write_1h_tokens ?? usage.cache_write_1h_tokens), written),
  };
}

/**
 * What one completion cost, by part; `null` when tokens were used at a price nobody knows (an uncatalogued model, an
 * offering without prices). Above a long-context threshold the whole request is billed at the higher tier.
 */
export function costBreakdown(
  usage: UsageLike | null | undefined,
  pricing: TokenPricing | null | undefined,
): CostBreakdown | null {
  // A count or a price no bill can hold (1e303 tokens, an infinite price): unknown, never a $0 that hides it.
  if (usageOverflows(usage) || pricingOverflows(pricing)) return null;
  const counts = normalizeUsage(usage);
  if (!pricing) return counts.prompt_tokens + counts.completion_tokens === 0 ? zeroCost() : null;
  const tier =
    pricing.long_context && counts.prompt_tokens > pricing.long_context.threshold ? pricing.long_context : undefined;
  const input = price(tier?.input ?? pricing.input);
  const cacheRead = price(tier?.cached_input ?? pricing.cached_input);
  const cacheWrite = price(tier?.cache_write ?? pricing.cache_write ?? input);
  const cacheWrite1h = price(tier?.cache_write_1h ?? pricing.cache_write_1h ?? cacheWrite);
  const output = price(tier?.output ?? pricing.output);
  const uncached = counts.prompt_tokens - counts.cached_tokens - counts.cache_write_tokens;
  const shortWrites = counts.cache_write_tokens - counts.cache_write_1h_tokens;
  const text = counts.completion_tokens - counts.reasoning_tokens;
  const images = Math.min(count(usage?.completion_tokens_details?.image_tokens), text);
  // Image tokens at the text rate would be a bill off by twelve times (LiteLLM's bug): without their price, unknown.
  if (images > 0 && pricing.output_image === undefined) return null;
  return bounded({
    input: perMillion(uncached * input),
    cache_read: perMillion(counts.cached_tokens * cacheRead),
    cache_write: perMillion(shortWrites * cacheWrite + counts.cache_write_1h_tokens * cacheWrite1h),
    output: perMillion((text - images) * output + images * price(pricing.output_image)),
    reasoning: perMillion(counts.reasoning_tokens * output),
  });
}

/** USD for one completion, rounded to 1e-9; `null` when its price is not known. */
export function computeCost(
  usage: UsageLike | null | undefined,
  pricing: TokenPricing | null | undefined,
): number | null {
  const breakdown = costBreakdown(usage, pricing);
  return breakdown && roundUsd(sumOf(breakdown));
}

/**
 * The cost of a call that took several completions, each at the price of the offering that served it, by part;
 * `null` when any of them was at an unknown price (never a silent $0).
 */
export function totalCostBreakdown(billed: readonly BilledUsage[]): CostBreakdown | null {
  // Asked for up to three times per call, one after the other (the answer, the budgets, the record): the last list
  // added up is remembered. One entry, not a WeakMap: its ephemerons cost the garbage collector more than they save.
  if (last.billed !== billed || last.count !== billed.length) {
    last.billed = billed;
    last.count = billed.length;
    last.cost = addUp(billed);
  }
  return last.cost && { ...last.cost };
}

const last: { billed: readonly BilledUsage[] | undefined; count: number; cost: CostBreakdown | null } = {
  billed: undefined,
  count: 0,
  cost: null,
};

function addUp(billed: readonly BilledUsage[]): CostBreakdown | null {
  const total = zeroCost();
  for (const entry of billed) {
    const part = entry.fixed !== undefined ? entry.fixed : costBreakdown(entry.usage, entry.pricing);
    if (!part) return null;
    total.input += part.input;
    total.cache_read += part.cache_read;
    total.cache_write += part.cache_write;
    total.output += part.output;
    total.reasoning += part.reasoning;
  }
  return bounded({
    input: roundUsd(total.input),
    cache_read: roundUsd(total.cache_read),
    cache_write: roundUsd(total.cache_write),
    output: roundUsd(total.output),
    reasoning: roundUsd(total.reasoning),
  });
}

/** USD for a call that took several completions; `null` when any was at an unknown price. */
export function computeTotalCost(billed: readonly BilledUsage[]): number | null {
  const breakdown = totalCostBreakdown(billed);
  return breakdown && roundUsd(sumOf(breakdown));
}

/** The total of a breakdown, rounded like every cost. */
export function sumOf(breakdown: CostBreakdown): number {
  return roundUsd(
    breakdown.input + breakdown.cache_read + breakdown.cache_write + breakdown.output + breakdown.reasoning,
  );
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
    total.cache_write_tokens += part.cache_write_tokens;
    total.cache_write_1h_tokens += part.cache_write_1h_tokens;
  }
  return total;
}

/** Rounds to the nano-dollar, so sums of records compare equal wherever they are added up. */
export function roundUsd(value: number): number {
  if (!Number.isFinite(value)) return 0;
  const nanos = value * 1e9;
  // Past 1e299 the nano-dollars overflow; such a value is already whole.
  return Number.isFinite(nanos) ? Math.round(nanos) / 1e9 : value;
}

/**
 * Past this, a price, a count or a cost is a fault somewhere (a list's typo, a provider's garbage), and sums of them
 * overflow to infinity, which rounds to $0: the cost is unknown instead (`null`, with a `price_unknown` warning).
 */
const OVERFLOW = 1e303;

/** Whether a number is not finite, or ≥ 1e303; absent fields are fine. */
function huge(value: number | null | undefined): boolean {
  return typeof value === 'number' && !(Math.abs(value) < OVERFLOW);
}

/**
 * Whether a count the bill is made from is past what it can hold. Each field read by name: this runs for every
 * completion, twice (the answer, the record), and walking the objects' values cost more than the arithmetic.
 */
function usageOverflows(usage: UsageLike | null | undefined): boolean {
  if (!usage) return false;
  const prompt = usage.prompt_tokens_details;
  return (
    huge(usage.prompt_tokens) ||
    huge(usage.completion_tokens) ||
    huge(usage.reasoning_tokens) ||
    huge(usage.cached_tokens) ||
    huge(usage.cache_write_tokens) ||
    huge(usage.cache_write_1h_tokens) ||
    (!!prompt &&
      (huge(prompt.cached_tokens) || huge(prompt.cache_write_tokens) || huge(prompt.cache_write_1h_tokens))) ||
    huge(usage.completion_tokens_details?.reasoning_tokens) ||
    huge(usage.completion_tokens_details?.image_tokens)
  );
}

/** Whether a price the bill is made from is past what it can hold. */
function pricingOverflows(pricing: TokenPricing | null | undefined): boolean {
  if (!pricing) return false;
  const tier = pricing.long_context;
  return (
    huge(pricing.input) ||
    huge(pricing.output) ||
    huge(pricing.cached_input) ||
    huge(pricing.cache_write) ||
    huge(pricing.cache_write_1h) ||
    huge(pricing.output_image) ||
    (!!tier &&
      (huge(tier.threshold) ||
        huge(tier.input) ||
        huge(tier.output) ||
        huge(tier.cached_input) ||
        huge(tier.cache_write) ||
        huge(tier.cache_write_1h)))
  );
}

/** The breakdown, or `null` when a part or the total is past what a bill can hold. */
function bounded(breakdown: CostBreakdown): CostBreakdown | null {
  const { input, cache_read, cache_write, output, reasoning } = breakdown;
  const total = input + cache_read + cache_write + output + reasoning;
  return huge(input) || huge(cache_read) || huge(cache_write) || huge(output) || huge(reasoning) || huge(total)
    ? null
    : breakdown;
}

function zeroCost(): CostBreakdown {
  return { input: 0, cache_read: 0, cache_write: 0, output: 0, reasoning: 0 };
}

/** An infinite product stays infinite, for `bounded` to refuse. */
function perMillion(value: number): number {
  return value / 1_000_000;
}

function price(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
