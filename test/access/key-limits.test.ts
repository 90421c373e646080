import { describe, expect, it } from 'vitest';
import { childLimits, effectiveLimits, keyLimitsProblem, parseKeyBudget } from '../../src/access/key-limits.ts';
import { budgetsOf, slotKey } from '../../src/budgets/budget-slots.ts';

/** The key limits rule alone: budgets read, defaults applied, a child within its parent, own budgets replacing. */
describe('the key limits rule', () => {
  it('reads budgets per window, and refuses other forms and a window twice', () => {
    expect(parseKeyBudget('5/day')).toEqual({ usd: 5, window: 'day' });
    expect(parseKeyBudget('100.5/month')).toEqual({ usd: 100.5, window: 'month' });
    expect(parseKeyBudget('20')).toEqual({ usd: 20, window: 'lifetime' });
    for (const bad of ['5/week', '-1/day', '$5/day', 'day', '5/day/month'])
      expect(parseKeyBudget(bad), bad).toBeUndefined();
    expect(keyLimitsProblem({ budgets: ['5/day', '6/day'] })).toBe('two budgets per day: keep one');
    expect(keyLimitsProblem({ budgets: ['5/day', '6/month'] })).toBeUndefined();
    expect(keyLimitsProblem({ budgets: ['5/week'] })).toBe(
      'budget "5/week" is not <dollars>[/day|/month|/lifetime] (e.g. 5/day, 100/month)',
    );
    for (const window of ['day', 'month', 'lifetime'])
      expect(parseKeyBudget(`5/${window}`), window).toEqual({ usd: 5, window });
    expect(parseKeyBudget('5/minute'), 'a dollar budget per minute').toBeUndefined();
  });

  it("fills what a key leaves out with the server's, its own budget of a window replacing the server's", () => {
    const defaults = { requests_per_minute: 60, max_in_flight: 64, budgets: ['5/day', '50/month'] };
    expect(effectiveLimits({ requests_per_minute: 10, budgets: ['2/day'] }, defaults)).toEqual({
      requests_per_minute: 10,
      max_in_flight: 64,
      budgets: ['2/day', '50/month'],
    });
    expect(effectiveLimits(null, {})).toEqual({});
  });

  it("refuses a child above its parent, naming the parent's limit; a limit the parent lacks is unbounded", () => {
    const parent = { requests_per_minute: 10, budgets: ['5/day'] };
    expect(() => childLimits(parent, { requests_per_minute: 100 })).toThrow(
      "a key's requests_per_minute (100) cannot be above its parent's (10)",
    );
    expect(() => childLimits(parent, { budgets: ['6/day'] })).toThrow('($5 per day)');
    expect(
      childLimits(parent, { requests_per_minute: 10, tokens_per_minute: 1_000_000, budgets: ['500/month'] }),
    ).toEqual({
      requests_per_minute: 10,
      tokens_per_minute: 1_000_000,
      budgets: ['500/month'],
    });
  });

  it("a key's own budgets replace the server's key rules of a kind; one counter, whoever sets it", () => {
    const rules = [
      { scope: 'key', usd: 5, window: 'day' },
      { scope: 'key', tokens: 1000, window: 'minute' },
    ] as const;
    const subject = { keys: ['key_child', 'key_team'], keyLimits: { key_team: { budgets: ['50/day'] } } };
    const budgets = budgetsOf(rules, subject).map(
      ({ rule, value }) => `${value} ${rule.usd ?? rule.tokens}/${rule.window}`,
    );
    expect(budgets).toEqual(['key_child 5/day', 'key_child 1000/minute', 'key_team 1000/minute', 'key_team 50/day']);
    const now = new Date('2026-05-01T12:00:00Z');
    const own = (usd: number) => slotKey({ scope: 'key', usd, window: 'day', own: true }, 'key_team', now);
    expect(own(50)).toBe(own(500));
    // The server's rule counts in the same counter: a key moved between the two keeps the window's spend.
    expect(slotKey(rules[0], 'key_team', now)).toBe(own(5));
  });
});
