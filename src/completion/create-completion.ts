import { InvalidRequestError, SwitchyardError } from '../errors.ts';
import type { ThinkingDisplay } from '../providers/provider.ts';
import type { Dialect } from '../records/call-record.ts';
import type { CompletionRequest, CompletionResponse, CompletionWarning } from '../types.ts';
import { answerFromCache } from './answer-from-cache.ts';
import { type CallPlan, CallTrace } from './call-plan.ts';
import { CompletionStream } from './completion-stream.ts';
import { enforceOutput } from './enforce-output.ts';
import { factsOf, finalise, recordCall, whenRecorded } from './finalise.ts';
import { dropImageModality } from './gate-model-support.ts';
import { guardAnswer, guardRequest, recordedOnFailure } from './guard-request.ts';
import { hedgeMayRun } from './hedge.ts';
import { type Candidate, planCandidates } from './plan-candidates.ts';
import { relayStream } from './relay-stream.ts';
import { type CompletionOptions, resolveRequest } from './resolve-request.ts';
import { runCompletion, runStream } from './run-completion.ts';
import type { Services } from './services.ts';
import type { BudgetSettlement, BudgetStage } from './stages.ts';

/**
 * One call, start to end. Every stage is a function of its own, handed the call's plan (what to send, fixed once
 * resolved) and its trace (attempts, warnings and billed usage, gathered as it goes); the record is built from
 * both, off the request path, whether the call succeeds or fails.
 *
 *   resolve → guard → plan candidates → (response cache) → (budgets reserve) → run attempts
 *   → enforce output | relay stream → finalise
 *
 * The budgets hold the call's worst cost from admission until it is recorded, when what it paid is charged instead.
 */
export async function createCompletion(
  services: Services,
  request: CompletionRequest,
  options: CompletionOptions = {},
  edge: EdgeTranslation = { dialect: 'chat' },
): Promise<CompletionResponse | CompletionStream> {
  const trace = new CallTrace(services.settings.strict, edge.dialect);
  let plan: CallPlan | undefined;
  let settle: BudgetSettlement | undefined;
  try {
    for (const warning of edge.warnings ?? []) trace.warn(warning);
    plan = await resolveRequest(services, request, options, trace);
    if (edge.answersImages === false) plan = withoutImageOutput(plan, edge.dialect, trace.warn);
    if (edge.thinkingDisplay) plan = { ...plan, thinkingDisplay: edge.thinkingDisplay };
    // Before the cache and any provider: both see the masked messages, and so does the record.
    ({ plan, recorded: request } = await guardRequest(services, plan, request, trace));
    const candidates = planCandidates(services, plan, trace.warn);
    // Before the budgets: a hit holds and costs nothing.
    // Awaited only when there is something to wait for: each await of a call is a microtask turn.
    const lookup = services.cache.lookUp(plan, trace);
    const cached = lookup && (await lookup);
    if (cached?.answer) {
      const answer = answerFromCache(services, request, plan, trace, cached.answer);
      if (answer instanceof CompletionStream) return answer;
      // Recorded once its guardrails passed (a refusal is recorded once, below), with the answer they let out.
      const response = await guardAnswer(services, trace, answer);
      recordCall(services, factsOf(request, plan), trace, { info: response.switchyard, response });
      return await whenRecorded(services, response);
    }
    settle = services.budgets ? await admitToBudgets(services.budgets, plan, candidates, trace) : undefined;
    if (plan.stream) {
      const opened = await runStream(services, plan, trace, candidates);
      // Recorded when the stream ends.
      const remember = cached?.rememberStream();
      return relayStream(services, { request, plan, trace, candidates }, opened, settle, remember);
    }
    const answered = await runCompletion(services, plan, trace, candidates);
    const response = await guardAnswer(
      services,
      trace,
      finalise(plan, trace, await enforceOutput(services, plan, trace, answered)),
    );
    cached?.rememberResponse(response);
    recordCall(services, factsOf(request, plan), trace, { info: response.switchyard, response }, settle);
    return await whenRecorded(services, response);
  } catch (thrown) {
    const error = asCallError(thrown);
    if (error instanceof SwitchyardError) error.callId = trace.id;
    const facts = factsOf(recordedOnFailure(services, request, trace, options.access), plan, trace);
    recordCall(services, { ...facts, messages: trace.recorded?.messages ?? facts.messages }, trace, { error }, settle);
    await services.recorder.durable();
    throw error;
  }
}

/**
 * Admits the call to the budgets with the candidates that may run (a skipped one never runs: no hold for it), held
 * for two requests when a hedge may send a second beside the first, as both are paid for.
 */
function admitToBudgets(
  budgets: BudgetStage,
  plan: CallPlan,
  candidates: readonly Candidate[],
  trace: CallTrace,
): Promise<BudgetSettlement | undefined> {
  const usable = candidates.filter((candidate) => candidate.skip === undefined);
  const requests = hedgeMayRun(plan, candidates) ? 2 : 1;
  return budgets.admitCall(plan, usable, requests, trace.warn);
}

/**
 * How a call of another API (the Responses API, the Messages API) was translated into a chat completion at the edge:
 * its dialect, for the record, and what the translation could not carry, warned about like any dropped parameter.
 */
export interface EdgeTranslation {
  dialect: Dialect;
  warnings?: CompletionWarning[];
  /** `false`: the dialect's answer has no place for images (a deployment's `modalities` asking for some). */
  answersImages?: boolean;
  /** The Messages API's `thinking.display`, which Claude is sent (chat has no field for it). */
  thinkingDisplay?: ThinkingDisplay | undefined;
}

/** Images a dialect's answer cannot carry are not asked for: none drawn, none paid for, the loss warned about. */
function withoutImageOutput(plan: CallPlan, dialect: Dialect, warn: CallTrace['warn']): CallPlan {
  if (!Array.isArray(plan.body.modalities) || !plan.body.modalities.includes('image')) return plan;
  const body = { ...plan.body };
  dropImageModality(body, `the ${dialect} API's answer has no place for images`, warn);
  return { ...plan, body };
}

/** Recursion over a caller's value nested tens of thousands deep overflows the stack: the request's fault, not ours. */
function asCallError(thrown: unknown): unknown {
  if (thrown instanceof RangeError && /call stack/i.test(thrown.message)) {
    return new InvalidRequestError(
      'The request is nested too deeply to process; flatten the deepest values.',
      null,
      'too_deep',
    );
  }
  return thrown;
}
