import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ProviderCompletion } from '../providers/provider.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { completeAttempt } from './call-provider.ts';
import type { Candidate } from './plan-candidates.ts';
import { type AttemptResult, runAttempts } from './run-attempts.ts';
import type { Services } from './services.ts';

/** A non-streamed answer from the first candidate that gives one; its usage is billed at that offering's price. */
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
    completeAttempt(services, plan, trace, extraMessages),
  );
  result.scope.dispose();
  trace.billed.push({ usage: result.value.usage, pricing: result.candidate.offering.pricing });
  return result;
}
