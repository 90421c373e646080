import { describe, expect, it } from 'vitest';
import { budgetToEffort, effortToBudget } from '../../src/index.ts';

describe('reasoning conversions between effort and thinking budget', () => {
  it.each([
    ['disabled', 100_000, 0],
    ['low', 100_000, 20_000],
    ['medium', 100_000, 50_000],
    ['high', 100_000, 80_000],
    ['low', 64_000, 12_800],
    ['high', 65_536, 52_429],
  ] as const)('effort %s on %i max → %i', (effort, max, budget) => {
    expect(effortToBudget(effort, max)).toBe(budget);
  });

  it.each([
    [0, 100_000, 'disabled'],
    [1, 100_000, 'low'],
    [20_000, 100_000, 'low'],
    [20_001, 100_000, 'medium'],
    [50_000, 100_000, 'medium'],
    [50_001, 100_000, 'high'],
    [500_000, 100_000, 'high'],
  ] as const)('budget %i on %i max → %s', (budget, max, effort) => {
    expect(budgetToEffort(budget, max)).toBe(effort);
  });
});
