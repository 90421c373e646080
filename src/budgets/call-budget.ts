import { keyLineage, tenantOf, withinTenant } from '../access/lineage.ts';
import type { BudgetSettlement, BudgetStage, CallPlan } from '../completion/stages.ts';
import { type BilledUsage, sumOf, totalCostBreakdown } from '../records/compute-cost.ts';
import type { CompletionWarning } from '../types.ts';
import {
  type BudgetHold,
  BudgetLedger,
  type BudgetOptions,
  type BudgetSubject,
  type WorstCost,
} from './budget-ledger.ts';
import { worstCost } from './estimate-cost.ts';

/** How long past the call's deadline a hold outlives it: a replica that died mid-call frees its holds after that. */
const HOLD_MARGIN_MS = 60_000;

/** Who a call is charged to: its metadata, its key and the keys that minted it within its tenant, and its tenant. */
export function budgetSubject(plan: Pick<CallPlan, 'metadata' | 'access'>): BudgetSubject {
  const tenant = tenantOf(plan.access);
  const keyLimits = plan.access?.keyLimits;
  return {
    metadata: plan.metadata,
    keys: withinTenant(keyLineage(plan.access), tenant),
    tenant,
    ...(keyLimits ? { keyLimits } : {}),
  };
}

/**
 * The pipeline's budget stage: a ledger over the gateway's budgets (`createGateway({ budgets })`). A completion holds
 * its worst cost (`worstCost`) at the dearest candidate that may run, as many times as requests may run at once (two
 * when a hedge may send a second), until its deadline has passed; an embedding holds the worst cost its caller
 * estimated.
 */
export function budgetStage(options: BudgetOptions): BudgetStage {
  const ledger = new BudgetLedger(options);
  // No gateway rule and no key of the caller's lineage with limits of its own (a `serve` without `--budget`, most
  // keys): nothing to hold, so no worst cost is estimated and no hold is made for the call.
  const ungoverned = (access: CallPlan['access']) => ledger.rules.length === 0 && access?.keyLimits === undefined;
  return {
    admitCall: (plan, candidates, requests, warn) => {
      if (ungoverned(plan.access)) return Promise.resolve(undefined);
      const worst = worstCost(plan.body, candidates, { corrections: plan.output ? 1 : 0 });
      const held = { usd: worst.usd * requests, tokens: worst.tokens * requests };
      return admit(ledger, budgetSubject(plan), held, plan.deadlineAt, warn);
    },
    admit: (payer, worst, deadlineAt, warn) =>
      ungoverned(payer.access)
        ? Promise.resolve(undefined)
        : admit(ledger, budgetSubject(payer), worst, deadlineAt, warn),
  };
}

/** `reserve` with a hold that lasts until the deadline (a `performance.now()` time) and a minute more. */
async function admit(
  ledger: BudgetLedger,
  subject: BudgetSubject,
  worst: WorstCost,
  deadlineAt: number,
  warn: (warning: CompletionWarning) => void,
): Promise<BudgetSettlement> {
  const holdMs = Math.max(0, deadlineAt - performance.now()) + HOLD_MARGIN_MS;
  const hold = await ledger.reserve(subject, worst, { holdMs, warn });
  return (billed) => settle(ledger, hold, billed);
}

/**
 * Settles a call's hold with what it paid: every completion it was billed for (a failed call's too), and their
 * tokens for token limits. Off the request path; a store that cannot be reached leaves the hold to lapse.
 */
function settle(ledger: BudgetLedger, hold: BudgetHold, billed: readonly BilledUsage[]): void {
  const paid = totalCostBreakdown(billed);
  const tokens = billed.reduce(
    (sum, { usage }) => sum + (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0),
    0,
  );
  ledger.settle(hold, paid && sumOf(paid), tokens).catch(() => {});
}
