import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ProviderError } from '../errors.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { completeAttempt, streamAttempt } from './call-provider.ts';
import type { OpenedStream } from './open-stream.ts';
import type { Candidate } from './plan-candidates.ts';
import { type AttemptResult, runAttempts } from './run-attempts.ts';
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
  const result = await runAttempts(
    services.getProvider,
    plan,
    candidates,
    trace.attempts,
    completeAttempt(services, plan, extraMessages),
  );
  result.scope.dispose();
  trace.adopt(result.shaped?.warnings.warnings ?? []);
  trace.billed.push({ usage: result.value.usage, pricing: result.candidate.offering.pricing });
  return result;
}

/** A stream opened by the first candidate that starts one, up to its first content; its request's warnings adopted. */
export async function runStream(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  candidates: readonly Candidate[],
): Promise<AttemptResult<OpenedStream>> {
  const opened = await runAttempts(
    services.getProvider,
    plan,
    candidates,
    trace.attempts,
    streamAttempt(services, plan),
  );
  trace.adopt(opened.shaped?.warnings.warnings ?? []);
  return opened;
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
