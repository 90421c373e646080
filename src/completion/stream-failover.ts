import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { MissingCredentialsError, ProviderError } from '../errors.ts';
import { estimatePromptTokens } from '../internal/estimate-tokens.ts';
import type { UsageLike } from '../records/compute-cost.ts';
import type { StreamRecorder } from '../records/stream-recorder.ts';
import type { Attempt, CompletionRequest } from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { streamAttempt } from './call-provider.ts';
import type { OpenedStream } from './open-stream.ts';
import type { Candidate } from './plan-candidates.ts';
import { type AttemptResult, runAttempts } from './run-attempts.ts';
import type { Services } from './services.ts';

/** What a streamed call relays from: the request, its plan and trace, and every candidate in order. */
export interface StreamCall {
  request: CompletionRequest;
  plan: CallPlan;
  trace: CallTrace;
  candidates: readonly Candidate[];
}

/** One provider stream of the caller's stream: the first, or a continuation after a break. */
export interface Segment {
  opened: AttemptResult<OpenedStream>;
  /** Its attempt in the trace, marked `stream_interrupted` if it breaks and the stream goes on elsewhere. */
  attempt: Attempt | undefined;
  /** Its own chunks, as the provider sent them: what it is billed. */
  recorder: StreamRecorder;
}

/** Asked of a model that does not continue a prefill: the partial answer is its own last turn. */
export const CONTINUE_PROMPT =
  'Your previous answer was cut off. Continue it exactly where it stops: do not repeat any of it, add no comment.';

export const USAGE_ESTIMATED = {
  code: 'usage_estimated',
  message:
    'The stream ended before the provider reported its usage (left early, or broken off): the tokens billed are ' +
    'estimated from the prompt and the text streamed, and the call is charged for them against the budgets.',
};

/**
 * Whether a break of this segment can go on elsewhere: failover is on for the call (`stream_failover`, else the
 * gateway's `streamFailover`, on by default), the caller has not left, it asks for one choice, and a later candidate
 * may be tried.
 */
export function canFailOver({ plan, candidates }: StreamCall, candidate: Candidate): boolean {
  if (!plan.streamFailover || plan.signal?.aborted) return false;
  // Several choices: a continuation goes on from one answer, and would restart the others mixed into theirs.
  if (((plan.body as { n?: number | null }).n ?? 1) > 1) return false;
  const at = candidates.indexOf(candidate);
  return at >= 0 && candidates.slice(at + 1).some((next) => next.skip === undefined);
}

/** What a segment consumed (its usage chunk, else an estimate, with a warning), billed at its offering's price. */
export function billSegment({ plan, trace }: StreamCall, segment: Segment): UsageLike {
  let usage = segment.recorder.usage;
  if (!usage) {
    usage = segment.recorder.estimatedUsage(estimatePromptTokens(plan.body));
    trace.warn(USAGE_ESTIMATED);
  }
  trace.billed.push({ usage, pricing: segment.opened.candidate.offering.pricing });
  return usage;
}

/**
 * After `broken` failed with `error` once `partial` (the text the caller has) was relayed: its attempt marked, and a
 * continuation opened at the later candidates through the usual attempts (retries, credentials, deadline). The
 * continuation carries the partial answer (see `continuationOf`). `undefined` when no candidate could open one.
 */
export async function openContinuation(
  services: Services,
  call: StreamCall,
  broken: Segment,
  error: ProviderError,
  partial: string,
): Promise<AttemptResult<OpenedStream> | undefined> {
  const { plan, trace, candidates } = call;
  if (broken.attempt) {
    broken.attempt.outcome = 'stream_interrupted';
    broken.attempt.message =
      `The stream broke off after content reached the caller (${error.message}); ` +
      'it went on at the next candidate.';
  }
  const later = candidates.slice(candidates.indexOf(broken.opened.candidate) + 1);
  const operation = streamAttempt(services, plan, (candidate) => continuationOf(services, candidate, partial));
  try {
    const opened = await runAttempts(services.getProvider, plan, later, trace.attempts, operation);
    trace.adopt(opened.shaped?.warnings.warnings ?? []);
    return opened;
  } catch (failure) {
    if (failure instanceof ProviderError || failure instanceof MissingCredentialsError) return undefined;
    throw failure;
  }
}

/**
 * The messages after the caller's that ask `candidate` to go on from `partial`: a prefill where its provider continues
 * one (without trailing space, which Anthropic refuses), else the partial answer as the assistant's turn and a user
 * turn asking to continue. Nothing when no text was relayed (reasoning, or a tool call held back): it starts over.
 */
export function continuationOf(
  services: Services,
  candidate: Candidate,
  partial: string,
): ChatCompletionMessageParam[] {
  if (!partial.trim()) return [];
  if (services.registry.get(candidate.offering.provider)?.capabilities.continuesPrefill)
    return [{ role: 'assistant', content: partial.trimEnd() }];
  return [
    { role: 'assistant', content: partial },
    { role: 'user', content: CONTINUE_PROMPT },
  ];
}
