import { keyLineage, tenantOf, withinTenant } from '../access/lineage.ts';
import type { CallPlan } from '../completion/call-plan.ts';
import { hedgeMayRun } from '../completion/hedge.ts';
import type { Services } from '../completion/services.ts';
import { type BilledUsage, sumOf, totalCostBreakdown } from '../records/compute-cost.ts';
import type { CompletionWarning } from '../types.ts';
import type { BudgetHold, BudgetSubject, WorstCost } from './budget-ledger.ts';
import { type PricedModel, worstCost } from './estimate-cost.ts';

/** How long past the call's deadline a hold outlives it: a replica that died mid-call frees its holds after that. */
const HOLD_MARGIN_MS = 60_000;

/** Who a call is charged to: its metadata, its key and the keys that minted it within its tenant, and its tenant. */
export function budgetSubject(plan: Pick<CallPlan, 'metadata' | 'access'>): BudgetSubject {
  const tenant = tenantOf(plan.access);
  return { metadata: plan.metadata, keys: withinTenant(keyLineage(plan.access), tenant), tenant };
}

/**
 * Admits a completion against the gateway's budgets, holding its worst cost (`worstCost`) at the dearest candidate
 * the caller may use (twice when a hedge may send two requests at once), until its deadline has passed;
 * `undefined` without budgets.
 */
export function reserveCall(
  services: Services,
  plan: CallPlan,
  candidates: ReadonlyArray<PricedModel & { offering: { provider: string; model: string }; skip?: unknown }>,
  warn: (warning: CompletionWarning) => void,
): Promise<BudgetHold | undefined> {
  if (!services.budgets) return Promise.resolve(undefined);
  // A skipped candidate (a model the key may not use, a window the prompt cannot fit) never runs: no hold for it.
  const usable = candidates.filter((candidate) => candidate.skip === undefined);
  const worst = worstCost(plan.body, usable, { corrections: plan.output ? 1 : 0 });
  // A hedge sends a second request beside the first, and both are paid for: held for both.
  const requests = hedgeMayRun(plan, candidates) ? 2 : 1;
  const held = { usd: worst.usd * requests, tokens: worst.tokens * requests };
  return reserveFor(services, budgetSubject(plan), held, plan.deadlineAt, warn);
}

/** `reserve` with a hold that lasts until the deadline (a `performance.now()` time) and a minute more. */
export function reserveFor(
  services: Services,
  subject: BudgetSubject,
  worst: WorstCost,
  deadlineAt: number,
  warn: (warning: CompletionWarning) => void,
): Promise<BudgetHold | undefined> {
  if (!services.budgets) return Promise.resolve(undefined);
  const holdMs = Math.max(0, deadlineAt - performance.now()) + HOLD_MARGIN_MS;
  return services.budgets.reserve(subject, worst, { holdMs, warn });
}

/**
 * Settles a call's hold with what it paid: every completion it was billed for (a failed call's too), and their
 * tokens for token limits. Off the request path; a store that cannot be reached leaves the hold to lapse.
 */
export function settleCall(services: Services, hold: BudgetHold | undefined, billed: readonly BilledUsage[]): void {
  if (!hold || !services.budgets) return;
  const paid = totalCostBreakdown(billed);
  const tokens = billed.reduce(
    (sum, { usage }) => sum + (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0),
    0,
  );
  services.budgets.settle(hold, paid && sumOf(paid), tokens).catch(() => {});
}
