import { ProviderError } from '../errors.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import type { FallbackReason } from '../types.ts';
import type { CallPlan } from './call-plan.ts';
import type { Candidate } from './plan-candidates.ts';
import type { AttemptOperation, AttemptResult } from './run-attempts.ts';

/**
 * The answers a call's `fallback_on` turned down: each was paid for, and the first is the call's answer should no
 * later candidate give one (a filtered answer is still better than an error the caller did not ask for).
 */
export class TurnedDown {
  readonly answers: AttemptResult<ProviderCompletion>[] = [];
}

/**
 * The attempt, turning down an answer for a reason the caller named in `fallback_on` while a later candidate may
 * still be tried: the run moves on as after a failure (`outcome: content_filter` or `refusal`). The last candidate's
 * answer always stands.
 */
export function unlessTurnedDown(
  plan: Pick<CallPlan, 'fallbackOn'>,
  candidates: readonly Candidate[],
  turnedDown: TurnedDown,
  operation: AttemptOperation<ProviderCompletion>,
): AttemptOperation<ProviderCompletion> {
  if (plan.fallbackOn.length === 0) return operation;
  const last = candidates.findLast((candidate) => candidate.skip === undefined);
  return async (provider, candidate, scope, sent) => {
    let shaped: Parameters<typeof sent>[0] | undefined;
    const completion = await operation(provider, candidate, scope, (request) => sent((shaped = request)));
    const reason = reasonIn(completion, plan.fallbackOn);
    if (reason === undefined || candidate === last) return completion;
    turnedDown.answers.push({ value: completion, candidate, shaped, provider: provider.name, scope });
    throw new ProviderError(`${provider.name} (${candidate.offering.model}) answered with ${WHAT[reason]}.`, {
      provider: provider.name,
      model: candidate.offering.model,
      status: 200,
      code: reason,
      retryable: false,
    });
  };
}

const WHAT: Record<FallbackReason, string> = {
  content_filter: 'an answer its content filter stopped; fallback_on moved the call on',
  refusal: 'a refusal; fallback_on moved the call on',
};

/** The first reason of `fallbackOn` that the answer gives. */
function reasonIn(completion: ProviderCompletion, fallbackOn: readonly FallbackReason[]): FallbackReason | undefined {
  const filtered = completion.choices.some((choice) => choice.finish_reason === 'content_filter');
  if (filtered && fallbackOn.includes('content_filter')) return 'content_filter';
  const refused = completion.choices.some((choice) => typeof choice.message.refusal === 'string');
  if (refused && fallbackOn.includes('refusal')) return 'refusal';
  return undefined;
}
