import type { BudgetHold } from '../budgets/budget-ledger.ts';
import { settleCall } from '../budgets/call-budget.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import type { CallRecordInput } from '../records/build-record.ts';
import type { CallContext } from '../records/call-recorder.ts';
import { sumOf, totalCostBreakdown } from '../records/compute-cost.ts';
import type { CompletionRequest, CompletionResponse, SwitchyardResponseInfo } from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import type { AttemptResult } from './run-attempts.ts';
import type { Services } from './services.ts';

/**
 * Stage 5, for answers: the provider's completion as the caller gets it. The envelope is ours to state (the catalog
 * id as `model`, the object type), and the routing facts and cost go beside it in `switchyard`. The completion
 * object is the call's own, so it is extended rather than copied.
 */
export function finalise(
  plan: CallPlan,
  trace: CallTrace,
  result: AttemptResult<ProviderCompletion>,
): CompletionResponse {
  const completion = result.value;
  completion.model = result.candidate.model.id;
  completion.object = 'chat.completion';
  if (completion.usage) {
    completion.usage.completion_tokens_details ??= {};
    completion.usage.completion_tokens_details.reasoning_tokens ??= 0;
  }
  return Object.assign(completion, { switchyard: responseInfo(plan, trace, result) });
}

/**
 * The `switchyard` facts of a response or stream: who answered, after which attempts, warnings, and the cost so far.
 */
export function responseInfo(plan: CallPlan, trace: CallTrace, result: AttemptResult<unknown>): SwitchyardResponseInfo {
  return {
    model: result.candidate.model.id,
    provider: result.provider,
    provider_model: result.candidate.offering.model,
    model_known: result.candidate.known,
    ...(plan.agentId !== undefined ? { agent_id: plan.agentId } : {}),
    ...(plan.deploymentId !== undefined ? { deployment_id: plan.deploymentId } : {}),
    call_id: trace.id,
    ...costOf(trace),
    attempts: trace.attempts,
    warnings: trace.warnings,
  };
}

/**
 * What the call cost so far, in total and by part. A price nobody knows (an uncatalogued model, an offering without
 * prices) makes it `null` with a `price_unknown` warning, never a silent $0.
 */
export function costOf(trace: CallTrace): Pick<SwitchyardResponseInfo, 'cost_usd' | 'cost'> {
  const cost = totalCostBreakdown(trace.billed);
  if (!cost) {
    trace.warn({
      code: 'price_unknown',
      message:
        'The price of a model this call used is not known (not in the catalog, or an offering without prices): ' +
        'cost_usd is null.',
    });
  }
  return { cost_usd: cost && sumOf(cost), cost };
}

/**
 * Queues the call's record: built from what the call asked, planned and went through, off the request path; and
 * settles its budget hold with what it paid (every paid attempt, a failed call's too).
 */
export function recordCall(
  services: Services,
  request: CompletionRequest,
  plan: CallPlan | undefined,
  trace: CallTrace,
  outcome: Pick<CallRecordInput, 'info' | 'response' | 'stream' | 'error'>,
  hold?: BudgetHold,
): void {
  const context: CallContext = {
    id: trace.id,
    dialect: trace.dialect,
    startedAt: trace.startedAt,
    billed: trace.billed,
    ...(plan
      ? {
          model: plan.model.id,
          agentId: plan.agentId,
          deploymentId: plan.deploymentId,
          metadata: plan.metadata,
          messages: plan.body.messages,
        }
      : {}),
  };
  // Before the record, which must not keep the hold from being released should it throw.
  settleCall(services, hold, trace.billed);
  services.recorder.record(request, context, outcome);
}
