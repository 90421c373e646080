import { describe, expect, it } from 'vitest';
import {
  computeCost,
  computeTotalCost,
  normalizeUsage,
  sumUsage,
  type TokenPricing,
  ZERO_USAGE,
} from '../../src/records/index.ts';

// Prices per 1M tokens, shaped like catalog offerings.
const gpt4o: TokenPricing = { input: 2.5, output: 10, cached_input: 1.25 };
const sonnet: TokenPricing = { input: 3, output: 15, cached_input: 0.3 };
const geminiFlash: TokenPricing = { input: 0.3, output: 2.5, cached_input: 0.075 };

describe('computeCost', () => {
  it('OpenAI usage: cached tokens are inside prompt_tokens and billed at cached_input', () => {
    const usage = {
      prompt_tokens: 10_000,
      completion_tokens: 2_000,
      total_tokens: 12_000,
      prompt_tokens_details: { cached_tokens: 4_000 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    // 6000 × 2.5 + 4000 × 1.25 + 2000 × 10, per million.
    expect(computeCost(usage, gpt4o)).toBe(0.04);
  });

  it('OpenAI reasoning usage: reasoning tokens are part of completion_tokens, billed once as output', () => {
    const usage = {
      prompt_tokens: 1_000,
      completion_tokens: 5_000,
      completion_tokens_details: { reasoning_tokens: 4_000 },
    };
    expect(computeCost(usage, { input: 2, output: 8, cached_input: 0.5 })).toBe(0.042);
    expect(normalizeUsage(usage)).toEqual({
      prompt_tokens: 1_000,
      completion_tokens: 5_000,
      reasoning_tokens: 4_000,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
    });
  });

  it('Anthropic usage as normalised: prompt_tokens = input + cache writes + cache reads', () => {
    // input_tokens 200, cache_creation 1000, cache_read 3000 (the adapter adds them up), output 500 of which thinking
    // 300.
    const usage = {
      prompt_tokens: 4_200,
      completion_tokens: 500,
      prompt_tokens_details: { cached_tokens: 3_000, cache_write_tokens: 1_000 },
      completion_tokens_details: { reasoning_tokens: 300 },
    };
    // (200 + 1000) × 3 + 3000 × 0.3 + 500 × 15, per million.
    expect(computeCost(usage, sonnet)).toBe(0.012);
  });

  it('Gemini usage as normalised: completion_tokens = candidates + thoughts', () => {
    // promptTokenCount 2000 with cachedContentTokenCount 1000; candidates 300 + thoughts 700.
    const usage = {
      prompt_tokens: 2_000,
      completion_tokens: 1_000,
      prompt_tokens_details: { cached_tokens: 1_000 },
      completion_tokens_details: { reasoning_tokens: 700 },
    };
    // 1000 × 0.3 + 1000 × 0.075 + 1000 × 2.5, per million.
    expect(computeCost(usage, geminiFlash)).toBe(0.002875);
  });

  it('rounds to 1e-9 USD', () => {
    expect(computeCost({ prompt_tokens: 1, completion_tokens: 0 }, { input: 0.0375, output: 0, cached_input: 0 })).toBe(
      3.8e-8,
    );
    expect(computeCost({ prompt_tokens: 1, completion_tokens: 0 }, { input: 0.0004, output: 0, cached_input: 0 })).toBe(
      0,
    );
    expect(
      computeCost({ prompt_tokens: 7, completion_tokens: 3 }, { input: 0.15, output: 0.6, cached_input: 0.075 }),
    ).toBe(0.00000285);
    expect(
      computeCost({ prompt_tokens: 1, completion_tokens: 0 }, { input: 0.0123456, output: 0, cached_input: 0 }),
    ).toBe(1.2e-8);
  });

  it('is 0 for missing usage, never NaN and never a throw; null (unknown, not $0) for non-finite numbers', () => {
    expect(computeCost(undefined, gpt4o)).toBe(0);
    expect(computeCost(null, gpt4o)).toBe(0);
    expect(computeCost({}, gpt4o)).toBe(0);
    // Tokens at no known price: unknown, not free.
    expect(computeCost({ prompt_tokens: 100, completion_tokens: 10 }, undefined)).toBeNull();
    expect(computeCost({ prompt_tokens: Number.NaN, completion_tokens: Infinity }, gpt4o)).toBeNull();
    expect(computeCost({ prompt_tokens: -5, completion_tokens: 10 }, gpt4o)).toBe(0.0001);
    expect(
      computeCost({ prompt_tokens: 10, completion_tokens: 0 }, { input: Number.NaN, output: 1, cached_input: 1 }),
    ).toBeNull();
  });

  it('never bills more cached tokens than prompt tokens', () => {
    const usage = { prompt_tokens: 100, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 500 } };
    expect(normalizeUsage(usage).cached_tokens).toBe(100);
    expect(computeCost(usage, gpt4o)).toBe(0.000125);
  });

  it('accepts a record usage (flat cached_tokens and reasoning_tokens)', () => {
    expect(
      computeCost(
        { prompt_tokens: 10_000, completion_tokens: 2_000, cached_tokens: 4_000, reasoning_tokens: 0 },
        gpt4o,
      ),
    ).toBe(0.04);
  });
});

describe('computeTotalCost and sumUsage', () => {
  it('adds each completion at the price of the offering that produced it', () => {
    const billed = [
      { usage: { prompt_tokens: 1_000, completion_tokens: 100 }, pricing: gpt4o },
      {
        usage: { prompt_tokens: 1_200, completion_tokens: 150, prompt_tokens_details: { cached_tokens: 1_000 } },
        pricing: sonnet,
      },
      { usage: undefined, pricing: sonnet },
    ];
    const separately = computeCost(billed[0]!.usage, gpt4o)! + computeCost(billed[1]!.usage, sonnet)!;
    expect(computeTotalCost(billed)).toBe(Math.round(separately * 1e9) / 1e9);
    // (1000 × 2.5 + 100 × 10 + 200 × 3 + 1000 × 0.3 + 150 × 15) / 1M
    expect(computeTotalCost(billed)).toBe(0.00665);
    expect(sumUsage(billed.map((part) => part.usage))).toEqual({
      prompt_tokens: 2_200,
      completion_tokens: 250,
      reasoning_tokens: 0,
      cached_tokens: 1_000,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
    });
  });

  it('is null when any completion was at an unknown price', () => {
    const billed = [
      { usage: { prompt_tokens: 1_000, completion_tokens: 100 }, pricing: gpt4o },
      { usage: { prompt_tokens: 10, completion_tokens: 1 }, pricing: null },
    ];
    expect(computeTotalCost(billed)).toBeNull();
  });

  it('is 0 for no completions', () => {
    expect(computeTotalCost([])).toBe(0);
    expect(sumUsage([])).toEqual(ZERO_USAGE);
  });
});
