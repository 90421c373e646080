import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ProviderError } from '../errors.ts';
import { customCallsBack } from '../providers/custom-tools.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import { attemptTimeoutMs, streamTimeoutsOf } from './attempt-policy.ts';
import type { AttemptScope } from './attempt-scope.ts';
import type { CallPlan } from './call-plan.ts';
import { customCallsStreamedBack } from './custom-tool-stream.ts';
import { type OpenedStream, openStream, type StreamTimeouts } from './open-stream.ts';
import type { Candidate } from './plan-candidates.ts';
import type { AttemptOperation } from './run-attempts.ts';
import type { Services } from './services.ts';
import { providerCallOf, type ShapedRequest, shapeRequest } from './shape-request.ts';

/** The attempt of a non-streamed call: one completion from one candidate. `extraMessages` follow the caller's. */
export function completeAttempt(
  services: Services,
  plan: CallPlan,
  extraMessages: ChatCompletionMessageParam[] = [],
): AttemptOperation<ProviderCompletion> {
  return (provider, candidate, scope, sent) =>
    inOutputMode(services, plan, candidate, extraMessages, sent, async (shaped) => {
      const completion = await provider.complete(
        providerCallOf(plan, shaped, attemptSignal(services, candidate, scope, undefined)),
      );
      return shaped.customTools ? customCallsBack(completion, shaped.customTools, shaped.warnings.warn) : completion;
    });
}

/**
 * The attempt of a streamed call: the provider's stream, read up to its first content inside the attempt, so a
 * provider that fails or stalls before the caller has anything is retried like any other failure. `extraMessages`
 * follow the caller's (a continuation after a broken stream, decided per candidate).
 */
export function streamAttempt(
  services: Services,
  plan: CallPlan,
  extraMessages: (candidate: Candidate) => ChatCompletionMessageParam[] = () => [],
): AttemptOperation<OpenedStream> {
  return (provider, candidate, scope, sent) =>
    inOutputMode(services, plan, candidate, extraMessages(candidate), sent, async (shaped) => {
      const limits = streamTimeoutsOf(services, plan.streamTimeouts, candidate.offering.provider);
      const source = await provider.stream(
        providerCallOf(plan, shaped, attemptSignal(services, candidate, scope, limits)),
      );
      const customs = shaped.customTools;
      return openStream(
        customs ? customCallsStreamedBack(source, customs, shaped.warnings.warn) : source,
        scope,
        limits,
      );
    });
}

/** The attempt's signal, when something may have to abort it (see `AttemptScope.signalFor`). */
function attemptSignal(
  services: Services,
  candidate: Candidate,
  scope: AttemptScope,
  limits: StreamTimeouts | undefined,
): AbortSignal | undefined {
  const streamLimits = limits !== undefined && (limits.firstTokenMs !== undefined || limits.idleMs !== undefined);
  return scope.signalFor({ attemptTimeoutMs: attemptTimeoutMs(services, candidate.offering.provider), streamLimits });
}

/**
 * Shapes the candidate's request and runs the attempt with it: the output format native where the candidate's
 * provider enforces it for the model, else in the prompt. A provider that refuses the format natively (its error
 * names `response_format`) gets the prompted shape at once, with a warning. `sent` learns each shape sent.
 */
async function inOutputMode<T>(
  services: Services,
  plan: CallPlan,
  candidate: Candidate,
  extraMessages: ChatCompletionMessageParam[],
  sent: (shaped: ShapedRequest) => void,
  attempt: (shaped: ShapedRequest) => Promise<T>,
): Promise<T> {
  const shaped = shapeRequest(services, plan, candidate, { extraMessages });
  sent(shaped);
  if (!shaped.output?.native) return attempt(shaped);
  try {
    return await attempt(shaped);
  } catch (error) {
    if (!rejectsOutputFormat(error)) throw error;
    const prompted = shapeRequest(services, plan, candidate, { extraMessages, native: false });
    prompted.warnings.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: `${candidate.offering.provider} rejected the schema natively; it was sent in the prompt instead.`,
    });
    sent(prompted);
    return attempt(prompted);
  }
}

function rejectsOutputFormat(error: unknown): boolean {
  return (
    error instanceof ProviderError && error.status === 400 && (error.param?.startsWith('response_format') ?? false)
  );
}
