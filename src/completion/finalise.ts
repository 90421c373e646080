import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ProviderCompletion } from '../providers/provider.ts';
import type { CallRecordInput } from '../records/build-record.ts';
import type { MediaRecord } from '../records/call-record.ts';
import type { CallContext, RecordedRequest } from '../records/call-recorder.ts';
import { sumOf, totalCostBreakdown } from '../records/compute-cost.ts';
import type { CompletionRequest, CompletionResponse, SwitchyardResponseInfo } from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import type { AttemptCandidate, AttemptResult } from './run-attempts.ts';
import type { Services } from './services.ts';
import type { BudgetSettlement } from './stages.ts';

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
  return Object.assign(completion, { switchyard: responseInfo(plan, trace, result, result.candidate.known) });
}

/** Who a call is attributed to, and whether its model is catalogued: what the `switchyard` facts add to the answer. */
export interface Attribution {
  readonly agentId: string | undefined;
  readonly deploymentId?: string | undefined;
}

/**
 * The `switchyard` facts of a response, stream or embedding: who answered, after which attempts, warnings, and the
 * cost so far.
 */
export function responseInfo(
  attribution: Attribution,
  trace: CallTrace,
  result: Pick<AttemptResult<unknown, AttemptCandidate>, 'candidate' | 'provider'>,
  known: boolean,
): SwitchyardResponseInfo {
  return {
    model: result.candidate.model.id,
    provider: result.provider,
    provider_model: result.candidate.offering.model,
    model_known: known,
    ...(attribution.agentId !== undefined ? { agent_id: attribution.agentId } : {}),
    ...(attribution.deploymentId !== undefined ? { deployment_id: attribution.deploymentId } : {}),
    call_id: trace.id,
    ...costOf(trace),
    attempts: trace.attempts,
    warnings: trace.warnings,
    ...(trace.sensitiveData ? { sensitive_data: trace.sensitiveData } : {}),
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
 * The answer once the call's record is on disk: a journaled gateway commits the records of an event-loop turn in one
 * write at its end, and no answer of the batch leaves before it. At once without a journal.
 */
export function whenRecorded<T>(services: Services, answer: T): T | Promise<T> {
  const durable = services.recorder.durable();
  return durable ? durable.then(() => answer) : answer;
}

/** What a call's record is built from besides its outcome: the request as written, and what was resolved of it. */
export interface RecordFacts {
  readonly request: RecordedRequest;
  /** The catalog id, once resolved. */
  readonly model?: string | undefined;
  readonly agentId?: string | undefined;
  readonly deploymentId?: string | undefined;
  readonly metadata?: Record<string, string> | undefined;
  /** What was sent: the rendered messages (a deployment's expanded prompt), or the texts embedded. */
  readonly messages?: ChatCompletionMessageParam[] | undefined;
  /** A media call's modality and billed units. */
  readonly media?: MediaRecord | undefined;
}

/** The record facts of a completion: the request, and its plan once resolved. */
export function factsOf(request: CompletionRequest, plan: CallPlan | undefined, trace?: CallTrace): RecordFacts {
  if (!plan) {
    // Failed before its plan: a deployment found by then names the call's deployment and agent all the same.
    const deployment = trace?.deployment;
    return deployment ? { request, deploymentId: deployment.id, agentId: deployment.agentId } : { request };
  }
  const { agentId, deploymentId, metadata } = plan;
  return { request, model: plan.model.id, agentId, deploymentId, metadata, messages: plan.body.messages };
}

/**
 * Queues the call's record: built from what the call asked, planned and went through, off the request path; and
 * settles its budget hold with what it paid (every paid attempt, a failed call's too).
 */
export function recordCall(
  services: Services,
  facts: RecordFacts,
  trace: CallTrace,
  outcome: Pick<CallRecordInput, 'info' | 'response' | 'stream' | 'error'>,
  settle?: BudgetSettlement,
): void {
  const { request, ...resolved } = facts;
  const context: CallContext = {
    id: trace.id,
    dialect: trace.dialect,
    startedAt: trace.startedAt,
    billed: trace.billed,
    sensitiveData: trace.sensitiveData,
    ...resolved,
  };
  // Before the record, which must not keep the hold from being released should it throw.
  settle?.(trace.billed);
  services.recorder.record(request, context, outcome);
}
