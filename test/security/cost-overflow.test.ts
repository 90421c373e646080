import { describe, expect, it } from 'vitest';
import { createGateway, extendCatalog } from '../../src/index.ts';
import { computeCost, computeTotalCost, type TokenPricing } from '../../src/records/index.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

/**
 * A cost never silently becomes $0: a price or a usage count no bill can hold (≥ 1e303, infinite,
 * not a number) or a product that overflows used to round to $0, so budgets and reports saw a free call. Now the cost
 * is `null`, and the call carries a `price_unknown` warning.
 */
const gpt4o: TokenPricing = { input: 2.5, output: 10, cached_input: 1.25 };
const usage = { prompt_tokens: 1_000, completion_tokens: 1_000 };

describe('a cost past what a bill can hold is unknown, not $0', () => {
  it('an infinite, NaN or ≥ 1e303 price', () => {
    for (const input of [Number.POSITIVE_INFINITY, Number.NaN, 1e303, 1e308])
      expect(computeCost(usage, { ...gpt4o, input })).toBeNull();
    expect(computeCost(usage, { ...gpt4o, long_context: { threshold: 10, input: 1e305, output: 1 } })).toBeNull();
  });

  it('an infinite (JSON 1e999) or ≥ 1e303 usage count', () => {
    const { prompt_tokens: infinite } = JSON.parse('{"prompt_tokens": 1e999}') as { prompt_tokens: number };
    expect(computeCost({ prompt_tokens: infinite, completion_tokens: 1 }, gpt4o)).toBeNull();
    expect(computeCost({ prompt_tokens: 1e303, completion_tokens: 1 }, gpt4o)).toBeNull();
    expect(computeCost({ ...usage, prompt_tokens_details: { cached_tokens: Number.NaN } }, gpt4o)).toBeNull();
  });

  it('a product or a sum that overflows', () => {
    expect(computeCost({ prompt_tokens: 1e200, completion_tokens: 0 }, { ...gpt4o, input: 1e200 })).toBeNull();
    const huge = { usage: { prompt_tokens: 1e302, completion_tokens: 0 }, pricing: { ...gpt4o, input: 9e6 } };
    expect(computeTotalCost([huge, huge])).toBeNull();
  });

  it('large but finite costs stay exact enough, small ones unchanged', () => {
    expect(computeCost(usage, gpt4o)).toBe(0.0125);
    expect(computeCost({ prompt_tokens: 1e12, completion_tokens: 0 }, gpt4o)).toBe(2_500_000);
    expect(computeCost({ prompt_tokens: 1e290, completion_tokens: 0 }, gpt4o)! / 2.5e284).toBeCloseTo(1, 12);
  });

  it('through the gateway: cost_usd null with a price_unknown warning', async () => {
    const catalog = extendCatalog(
      [{ id: 'gpt-4o-2024-11-20', providers: [{ provider: 'openai', pricing: { input: 1e303 } }] }],
      {
        base: testCatalog,
      },
    );
    const gateway = createGateway({ catalog, mock: new MockProvider() });
    const response = await gateway.createCompletion({
      model: 'gpt-4o-2024-11-20',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.switchyard.cost_usd).toBeNull();
    expect(response.switchyard.warnings.map((warning) => warning.code)).toContain('price_unknown');
  });
});
