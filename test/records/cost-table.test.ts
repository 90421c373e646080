import { describe, expect, it } from 'vitest';
import { defaultCatalog } from '../../src/catalog/default-catalog.ts';
import { computeCost, costBreakdown, type UsageLike } from '../../src/records/compute-cost.ts';

/**
 * Each case's expected cost was worked out by hand from the provider's published prices (USD per 1M tokens), not by
 * the code under test: the comment beside it shows the arithmetic. Prices are read from the shipped catalog, so a
 * wrong price row fails here too.
 */
interface Case {
  name: string;
  model: string;
  provider: string;
  usage: UsageLike;
  /** USD, or null when the price is not known. */
  expected: number | null;
}

const cases: Case[] = [
  {
    name: 'OpenAI, no cache',
    model: 'gpt-4o-2024-11-20',
    provider: 'openai',
    usage: { prompt_tokens: 1_000, completion_tokens: 500 },
    expected: 0.0075, // 1000 × 2.5 + 500 × 10 = 7500 → $0.0075
  },
  {
    name: 'OpenAI, cache hit',
    model: 'gpt-4.1-2025-04-14',
    provider: 'openai',
    usage: { prompt_tokens: 10_000, completion_tokens: 1_000, prompt_tokens_details: { cached_tokens: 8_000 } },
    expected: 0.016, // 2000 × 2 + 8000 × 0.5 + 1000 × 8 = 16000
  },
  {
    name: 'OpenAI reasoning: reasoning tokens inside completion_tokens, billed once',
    model: 'gpt-5-2025-08-07',
    provider: 'openai',
    usage: { prompt_tokens: 2_000, completion_tokens: 3_000, completion_tokens_details: { reasoning_tokens: 2_500 } },
    expected: 0.0325, // 2000 × 1.25 + 3000 × 10 = 32500
  },
  {
    name: 'OpenAI mini, cached and reasoning together',
    model: 'gpt-5-mini-2025-08-07',
    provider: 'openai',
    usage: {
      prompt_tokens: 40_000,
      completion_tokens: 4_000,
      prompt_tokens_details: { cached_tokens: 30_000 },
      completion_tokens_details: { reasoning_tokens: 3_000 },
    },
    expected: 0.01125, // 10000 × 0.25 + 30000 × 0.025 + 4000 × 2 = 2500 + 750 + 8000
  },
  {
    name: 'Anthropic, no cache',
    model: 'claude-sonnet-4-5-20250929',
    provider: 'anthropic',
    usage: { prompt_tokens: 1_000, completion_tokens: 200 },
    expected: 0.006, // 1000 × 3 + 200 × 15 = 6000
  },
  {
    name: 'Anthropic, 5-minute cache write at 1.25 × input',
    model: 'claude-sonnet-4-5-20250929',
    provider: 'anthropic',
    usage: { prompt_tokens: 10_100, completion_tokens: 100, prompt_tokens_details: { cache_write_tokens: 10_000 } },
    expected: 0.0393, // 100 × 3 + 10000 × 3.75 + 100 × 15 = 300 + 37500 + 1500 = 39300
  },
  {
    name: 'Anthropic, cache read at 0.1 × input',
    model: 'claude-sonnet-4-5-20250929',
    provider: 'anthropic',
    usage: { prompt_tokens: 10_100, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 10_000 } },
    expected: 0.0048, // 100 × 3 + 10000 × 0.3 + 100 × 15 = 300 + 3000 + 1500 = 4800
  },
  {
    name: 'Anthropic, 1-hour cache write at 2 × input',
    model: 'claude-opus-4-5-20251101',
    provider: 'anthropic',
    usage: {
      prompt_tokens: 5_000,
      completion_tokens: 1_000,
      prompt_tokens_details: { cache_write_tokens: 4_000, cache_write_1h_tokens: 4_000 },
    },
    expected: 0.07, // 1000 × 5 + 4000 × 10 + 1000 × 25 = 5000 + 40000 + 25000 = 70000
  },
  {
    name: 'Anthropic, 5-minute and 1-hour writes and a read in one call',
    model: 'claude-haiku-4-5-20251001',
    provider: 'anthropic',
    usage: {
      prompt_tokens: 9_000,
      completion_tokens: 2_000,
      prompt_tokens_details: { cached_tokens: 5_000, cache_write_tokens: 3_000, cache_write_1h_tokens: 1_000 },
    },
    // 1000 × 1 + 5000 × 0.1 + 2000 × 1.25 + 1000 × 2 + 2000 × 5 = 1000 + 500 + 2500 + 2000 + 10000 = 16000
    expected: 0.016,
  },
  {
    name: 'Anthropic extended thinking: thinking tokens inside output, billed once',
    model: 'claude-sonnet-4-6',
    provider: 'anthropic',
    usage: { prompt_tokens: 3_000, completion_tokens: 5_000, completion_tokens_details: { reasoning_tokens: 4_000 } },
    expected: 0.084, // 3000 × 3 + 5000 × 15 = 9000 + 75000
  },
  {
    name: 'Claude Sonnet 4.5 above 200k input: the whole request at 6 / 22.5',
    model: 'claude-sonnet-4-5-20250929',
    provider: 'anthropic',
    usage: { prompt_tokens: 250_000, completion_tokens: 1_000 },
    expected: 1.5225, // 250000 × 6 + 1000 × 22.5 = 1500000 + 22500
  },
  {
    name: 'Claude Sonnet 4.6 at exactly 200k input: still the base tier',
    model: 'claude-sonnet-4-6',
    provider: 'anthropic',
    usage: { prompt_tokens: 200_000, completion_tokens: 1_000 },
    expected: 0.615, // 200000 × 3 + 1000 × 15 = 600000 + 15000
  },
  {
    name: 'Claude Opus 4.6 above 200k counting cache reads and writes, long-context cache prices',
    model: 'claude-opus-4-6',
    provider: 'anthropic',
    usage: {
      prompt_tokens: 300_000,
      completion_tokens: 2_000,
      prompt_tokens_details: { cached_tokens: 180_000, cache_write_tokens: 100_000 },
    },
    // 20000 × 10 + 180000 × 1 + 100000 × 12.5 + 2000 × 37.5 = 200000 + 180000 + 1250000 + 75000 = 1705000
    expected: 1.705,
  },
  {
    name: 'Claude through OpenRouter: the same cache-write price',
    model: 'claude-sonnet-4-5-20250929',
    provider: 'openrouter',
    usage: { prompt_tokens: 2_000, completion_tokens: 0, prompt_tokens_details: { cache_write_tokens: 2_000 } },
    expected: 0.0075, // 2000 × 3.75
  },
  {
    name: 'Gemini Flash: thoughts inside completion_tokens, implicit cache hit',
    model: 'gemini-2.5-flash',
    provider: 'google',
    usage: {
      prompt_tokens: 20_000,
      completion_tokens: 3_000,
      prompt_tokens_details: { cached_tokens: 16_000 },
      completion_tokens_details: { reasoning_tokens: 2_000 },
    },
    expected: 0.00918, // 4000 × 0.3 + 16000 × 0.03 + 3000 × 2.5 = 1200 + 480 + 7500
  },
  {
    name: 'Gemini 2.5 Pro below 200k',
    model: 'gemini-2.5-pro',
    provider: 'google',
    usage: { prompt_tokens: 100_000, completion_tokens: 2_000 },
    expected: 0.145, // 100000 × 1.25 + 2000 × 10 = 125000 + 20000
  },
  {
    name: 'Gemini 2.5 Pro above 200k: the whole request at 2.5 / 15',
    model: 'gemini-2.5-pro',
    provider: 'google',
    usage: { prompt_tokens: 200_001, completion_tokens: 2_000 },
    expected: 0.5300025, // 200001 × 2.5 + 2000 × 15 = 500002.5 + 30000
  },
  {
    name: 'Gemini 3.1 Pro above 200k with a cache hit',
    model: 'gemini-3.1-pro-preview',
    provider: 'google',
    usage: { prompt_tokens: 400_000, completion_tokens: 10_000, prompt_tokens_details: { cached_tokens: 300_000 } },
    expected: 0.7, // 100000 × 4 + 300000 × 0.4 + 10000 × 18 = 400000 + 120000 + 180000
  },
  {
    name: 'xAI, cache hit',
    model: 'grok-4.3',
    provider: 'xai',
    usage: { prompt_tokens: 50_000, completion_tokens: 1_000, prompt_tokens_details: { cached_tokens: 40_000 } },
    expected: 0.023, // 10000 × 1.25 + 40000 × 0.2 + 1000 × 2.5 = 12500 + 8000 + 2500
  },
  {
    name: 'DeepSeek, cache hit at a 50× discount',
    model: 'deepseek-v4.1-flash',
    provider: 'deepseek',
    usage: { prompt_tokens: 100_000, completion_tokens: 5_000, prompt_tokens_details: { cached_tokens: 90_000 } },
    expected: 0.00954, // 10000 × 0.3 + 90000 × 0.006 + 5000 × 1.2 = 3000 + 540 + 6000
  },
  {
    name: 'Groq open-weights model with a cache discount',
    model: 'gpt-oss-120b',
    provider: 'groq',
    usage: { prompt_tokens: 8_000, completion_tokens: 2_000, prompt_tokens_details: { cached_tokens: 4_000 } },
    expected: 0.0021, // 4000 × 0.15 + 4000 × 0.075 + 2000 × 0.6 = 600 + 300 + 1200
  },
  {
    name: 'Mistral, no cache discount: cached tokens at the input price',
    model: 'mistral-large-2512',
    provider: 'mistral',
    usage: { prompt_tokens: 6_000, completion_tokens: 1_000, prompt_tokens_details: { cached_tokens: 3_000 } },
    expected: 0.0045, // 6000 × 0.5 + 1000 × 1.5 = 3000 + 1500
  },
  {
    name: 'OpenAI cache_write_tokens without a write price: billed as input',
    model: 'gpt-4o-mini-2024-07-18',
    provider: 'openai',
    usage: { prompt_tokens: 2_000, completion_tokens: 100, prompt_tokens_details: { cache_write_tokens: 1_500 } },
    expected: 0.00036, // 2000 × 0.15 + 100 × 0.6 = 300 + 60
  },
];

function pricingOf(model: string, provider: string) {
  const entry = defaultCatalog().find(model);
  const offering = entry?.providers.find((candidate) => candidate.provider === provider);
  if (!offering) throw new Error(`the catalog has no ${provider} offering of ${model}`);
  return offering.pricing;
}

describe('cost, hand-computed, across providers', () => {
  it('has at least 20 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(cases)('$name', ({ model, provider, usage, expected }) => {
    const pricing = pricingOf(model, provider);
    expect(computeCost(usage, pricing)).toBeCloseTo(expected!, 9);
    const parts = costBreakdown(usage, pricing)!;
    const sum = parts.input + parts.cache_read + parts.cache_write + parts.output + parts.reasoning;
    expect(sum).toBeCloseTo(expected!, 9);
  });

  it('an unknown price is null, never a silent $0; no tokens at an unknown price cost 0', () => {
    expect(computeCost({ prompt_tokens: 10, completion_tokens: 1 }, null)).toBeNull();
    expect(costBreakdown({ prompt_tokens: 10, completion_tokens: 1 }, undefined)).toBeNull();
    expect(computeCost({ prompt_tokens: 0, completion_tokens: 0 }, null)).toBe(0);
  });

  it('splits a call into input, cache read, cache write, output and reasoning', () => {
    const parts = costBreakdown(
      {
        prompt_tokens: 9_000,
        completion_tokens: 2_000,
        prompt_tokens_details: { cached_tokens: 5_000, cache_write_tokens: 3_000, cache_write_1h_tokens: 1_000 },
        completion_tokens_details: { reasoning_tokens: 500 },
      },
      pricingOf('claude-haiku-4-5-20251001', 'anthropic'),
    );
    // input 1000 × 1; read 5000 × 0.1; write 2000 × 1.25 + 1000 × 2; output 1500 × 5; reasoning 500 × 5.
    expect(parts).toEqual({ input: 0.001, cache_read: 0.0005, cache_write: 0.0045, output: 0.0075, reasoning: 0.0025 });
  });
});
