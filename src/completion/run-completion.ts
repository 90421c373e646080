import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ProviderError } from '../errors.ts';
import { estimatePromptTokens } from '../internal/estimate-tokens.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import type { BilledUsage } from '../records/compute-cost.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { completeAttempt, streamAttempt } from './call-provider.ts';
import { TurnedDown, unlessTurnedDown } from './fallback-on.ts';
import { runHedged } from './hedge.ts';
import { latencyOf } from './latency-tracker.ts';
import type { OpenedStream } from './open-stream.ts';
import type { Candidate } from './plan-candidates.ts';
import type { AttemptResult } from './run-attempts.ts';
import type { Services } from './services.ts';

/**
 * A non-streamed answer from the first candidate that gives one; its usage is billed at that offering's price, and
 * the warnings of the request that candidate was sent become the call's.
 */
export async function runCompletion(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  candidates: readonly Candidate[],
  extraMessages: ChatCompletionMessageParam[] = [],
): Promise<AttemptResult<ProviderCompletion>> {
  const turnedDown = new TurnedDown();
  const operation = unlessTurnedDown(plan, candidates, turnedDown, completeAttempt(services, plan, extraMessages));
  let result: AttemptResult<ProviderCompletion>;
  try {
    const estimates = new Map<Candidate, BilledUsage>();
    result = await runHedged(services.getProvider, plan, candidates, trace.attempts, operation, {
      lost: (candidate) => estimates.set(candidate, billLoser(plan, trace, candidate)),
      // A hedged loser that answered before its abort took: paid what it reported, rather than the estimate.
      late(lost) {
        lost.scope.dispose();
        const estimated = estimates.get(lost.candidate);
        if (estimated) estimated.usage = lost.value.usage;
        else trace.billed.push({ usage: lost.value.usage, pricing: lost.candidate.offering.pricing });
      },
      warn: trace.warn,
    });
    observeLatency(services, trace, result.candidate);
  } catch (error) {
    const first = turnedDown.answers[0];
    if (!(error instanceof ProviderError) || first === undefined) throw error;
    trace.warn({ code: 'fallback_failed', message: `No later candidate answered (${error.message}); kept the first.` });
    result = first;
  }
  result.scope.dispose();
  trace.adopt(result.shaped?.warnings.warnings ?? []);
  // Every answer turned down was paid for, as the one kept.
  for (const answered of turnedDown.answers) bill(trace, answered);
  if (!turnedDown.answers.includes(result)) bill(trace, result);
  return result;
}

/** A stream opened by the first candidate that starts one, up to its first content; its request's warnings adopted. */
export async function runStream(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  candidates: readonly Candidate[],
): Promise<AttemptResult<OpenedStream>> {
  const opened = await runHedged(
    services.getProvider,
    plan,
    candidates,
    trace.attempts,
    streamAttempt(services, plan),
    {
      lost: (candidate) => billLoser(plan, trace, candidate),
      // A stream that opened as it lost: closed; its content so far is a chunk or two, its prompt billed already.
      late(lost) {
        lost.scope.dispose();
        lost.value.rest.return?.().catch(() => undefined);
      },
      warn: trace.warn,
    },
  );
  trace.adopt(opened.shaped?.warnings.warnings ?? []);
  observeLatency(services, trace, opened.candidate);
  return opened;
}

/** The answering attempt (the last one) in the gateway's latency estimate of its offering. */
function observeLatency(services: Services, trace: CallTrace, { offering }: Candidate): void {
  const answered = trace.attempts.at(-1);
  if (answered?.outcome === 'ok') latencyOf(services).observe(offering.provider, offering.model, answered.duration_ms);
}

/**
 * A correction goes to the candidate whose answer it corrects: another model did not write it. When that candidate
 * cannot answer now, the answer stands as it was (and is judged as it is).
 */
export async function correct(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  answered: AttemptResult<ProviderCompletion>,
  messages: ChatCompletionMessageParam[],
): Promise<AttemptResult<ProviderCompletion>> {
  try {
    return await runCompletion(services, plan, trace, [answered.candidate], messages);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    trace.warn({
      code: 'correction_failed',
      message: `${answered.candidate.model.id} could not be asked to correct its answer: ${error.message}`,
    });
    return answered;
  }
}

/** Why a hedged call's cost holds an estimate: the request that lost was aborted before it reported its usage. */
const HEDGE_LOSER_ESTIMATED = {
  code: 'usage_estimated',
  message:
    'A hedged request that lost was aborted before its provider reported usage: it read the prompt, which is billed ' +
    'as estimated, and the call is charged for it against the budgets.',
};

/**
 * A hedge's losing try, aborted in flight: its provider read the whole prompt and bills it, so the call is charged
 * the prompt as estimated (as for a stream left early) at that candidate's price. The entry, for a late answer.
 */
function billLoser(plan: CallPlan, trace: CallTrace, candidate: Candidate): BilledUsage {
  const billed: BilledUsage = {
    usage: { prompt_tokens: estimatePromptTokens(plan.body), completion_tokens: 0 },
    pricing: candidate.offering.pricing,
  };
  trace.billed.push(billed);
  trace.warn(HEDGE_LOSER_ESTIMATED);
  return billed;
}

function bill(trace: CallTrace, answered: AttemptResult<ProviderCompletion>): void {
  trace.billed.push({ usage: answered.value.usage, pricing: answered.candidate.offering.pricing });
}
