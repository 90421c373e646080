import { forbidden } from './scopes.ts';

/**
 * A key's own limits, set when it is made and changed later (`PATCH /v1/keys/{id}`): requests a minute, tokens (in
 * and out) a minute, requests in flight at once, and dollar budgets per window (`5/day`, `100/month`, `20` for the
 * key's lifetime). Absent: the server's default (`serve --rate-limit`, `--tokens-per-minute`,
 * `--max-concurrent-per-key`, `--budget key:…`). A key's calls count against its own limits and each ancestor's,
 * within its tenant (`withinTenant`).
 */
export interface KeyLimits {
  requests_per_minute?: number | undefined;
  tokens_per_minute?: number | undefined;
  max_in_flight?: number | undefined;
  budgets?: string[] | undefined;
}

/**
 * The windows a dollar budget written as text can name, the one list: a key's (`5/day`, `20` for its lifetime) and
 * `--budget`'s (`agent:10/month`). A minute is a window of tokens only (`tokens_per_minute`).
 */
export const DOLLAR_WINDOWS = ['day', 'month', 'lifetime'] as const;
export type BudgetWindowText = (typeof DOLLAR_WINDOWS)[number];
/** How a key's dollar budget is written, for the messages that refuse one: `<dollars>[/day|/month|/lifetime]`. */
export const KEY_BUDGET_FORM = `<dollars>[/${DOLLAR_WINDOWS.join('|/')}]`;

/** One of a key's dollar budgets: `usd` per `window`. */
export interface KeyBudget {
  usd: number;
  window: BudgetWindowText;
}

const NUMERIC = ['requests_per_minute', 'tokens_per_minute', 'max_in_flight'] as const;

/** `5/day`, `100/month`, `20` (or `20/lifetime`): dollars per window; `undefined` when not of that form. */
export function parseKeyBudget(text: string): KeyBudget | undefined {
  const match = /^(\d+(?:\.\d+)?)(?:\/(\w+))?$/.exec(text.trim());
  const window = DOLLAR_WINDOWS.find((known) => known === (match?.[2] ?? 'lifetime'));
  return match && window ? { usd: Number(match[1]), window } : undefined;
}

/** A key's budgets by window; a window written twice is refused by `keyLimitsProblem`. */
export function keyBudgets(limits: KeyLimits | null | undefined): KeyBudget[] {
  return (limits?.budgets ?? []).map(parseKeyBudget).filter((budget) => budget !== undefined);
}

/** Why `limits` cannot be stored as given (a budget not of the form, a window twice), or `undefined`. */
export function keyLimitsProblem(limits: KeyLimits): string | undefined {
  const windows = new Set<string>();
  for (const text of limits.budgets ?? []) {
    const budget = parseKeyBudget(text);
    if (!budget) return `budget "${text}" is not ${KEY_BUDGET_FORM} (e.g. 5/day, 100/month)`;
    if (windows.has(budget.window)) return `two budgets per ${budget.window}: keep one`;
    windows.add(budget.window);
  }
  return undefined;
}

/** A key's limits where it sets none of its own: the server's defaults, each absent where the server has none. */
export function effectiveLimits(own: KeyLimits | null | undefined, defaults: KeyLimits = {}): KeyLimits {
  const result: KeyLimits = {};
  for (const name of NUMERIC) {
    const value = own?.[name] ?? defaults[name];
    if (value !== undefined) result[name] = value;
  }
  const byWindow = new Map(keyBudgets(defaults).map((budget) => [budget.window, budget]));
  for (const budget of keyBudgets(own)) byWindow.set(budget.window, budget);
  if (byWindow.size > 0) result.budgets = [...byWindow.values()].map(budgetText);
  return result;
}

/**
 * A child's limits, refused (403, naming the parent's limit) when any is above its parent's: `parent` is the
 * parent's effective limits (`effectiveLimits`; a limit it lacks is unlimited), compared per number and per budget
 * window. A child's use counts against its parent's limits too, so an unset child limit needs no check.
 */
export function childLimits(parent: KeyLimits, asked: KeyLimits): KeyLimits {
  for (const name of NUMERIC) {
    const wanted = asked[name];
    const ceiling = parent[name];
    if (wanted !== undefined && ceiling !== undefined && wanted > ceiling)
      throw forbidden(`a key's ${name} (${wanted}) cannot be above its parent's (${ceiling})`);
  }
  const parentBudgets = new Map(keyBudgets(parent).map((budget) => [budget.window, budget.usd]));
  for (const budget of keyBudgets(asked)) {
    const ceiling = parentBudgets.get(budget.window);
    if (ceiling !== undefined && budget.usd > ceiling)
      throw forbidden(
        `a key's budget of $${budget.usd} per ${budget.window} cannot be above its parent's ($${ceiling} per ` +
          `${budget.window})`,
      );
  }
  return withoutEmpty(asked);
}

/** The limits with what is unset left out; `undefined` when none is set. */
export function withoutEmpty(limits: KeyLimits | null | undefined): KeyLimits {
  const result: KeyLimits = {};
  for (const name of NUMERIC) if (limits?.[name] !== undefined) result[name] = limits[name];
  if (limits?.budgets?.length) result.budgets = [...limits.budgets];
  return result;
}

/** Whether any limit is set. */
export function hasLimits(limits: KeyLimits | null | undefined): limits is KeyLimits {
  return limits !== null && limits !== undefined && Object.keys(withoutEmpty(limits)).length > 0;
}

function budgetText(budget: KeyBudget): string {
  return budget.window === 'lifetime' ? String(budget.usd) : `${budget.usd}/${budget.window}`;
}
