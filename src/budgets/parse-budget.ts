import { DOLLAR_WINDOWS } from '../access/key-limits.ts';
import type { BudgetRule } from './budget-ledger.ts';
import { BUDGET_SCOPES } from './budget-slots.ts';

/**
 * A budget written on the command line: `<scope>:<dollars>[/<window>]`, e.g. `trace:2.5`, `agent:10/day`,
 * `workflow:100/month`, `key:5/day`. The window defaults to the lifetime of the value (a trace's whole run).
 */
export function parseBudget(text: string): BudgetRule {
  const match = /^(\w+):(\d+(?:\.\d+)?)(?:\/(\w+))?$/.exec(text.trim());
  const scope = BUDGET_SCOPES.find((known) => known === match?.[1]);
  const window = DOLLAR_WINDOWS.find((known) => known === (match?.[3] ?? 'lifetime'));
  if (!match || !scope || !window) {
    throw new Error(
      `Budget "${text}" is not <scope>:<dollars>[/<window>] with a scope among ${BUDGET_SCOPES.join(', ')} and a ` +
        `window among ${DOLLAR_WINDOWS.join(', ')} (e.g. trace:2.5, agent:10/day).`,
    );
  }
  return { scope, usd: Number(match[2]), window };
}
