import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ProviderError } from '../errors.ts';
import type { ProviderCall, ProviderCompletion } from '../providers/provider.ts';
import { applyOutputSpec } from '../structured-output/apply-output-spec.ts';
import { planStrictSchema } from '../structured-output/strict-json-schema.ts';
import type { AttemptScope } from './attempt-scope.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { type OpenedStream, openStream } from './open-stream.ts';
import type { Candidate } from './plan-candidates.ts';
import type { AttemptOperation } from './run-attempts.ts';
import type { Services } from './services.ts';

/** The attempt of a non-streamed call: one completion from one candidate. `extraMessages` follow the caller's. */
export function completeAttempt(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  extraMessages: ChatCompletionMessageParam[] = [],
): AttemptOperation<ProviderCompletion> {
  return (provider, candidate, scope) =>
    inOutputMode(services, plan, trace, candidate, async (native) =>
      markStrictForm(
        await provider.complete(
          providerCall(plan, trace, candidate, native, attemptSignal(plan, candidate, scope, false), extraMessages),
        ),
        services,
        plan,
        candidate,
        native,
      ),
    );
}

/**
 * The attempt of a streamed call: the provider's stream, read up to its first content inside the attempt, so a
 * provider that fails or stalls before the caller has anything is retried like any other failure.
 */
export function streamAttempt(services: Services, plan: CallPlan, trace: CallTrace): AttemptOperation<OpenedStream> {
  return (provider, candidate, scope) =>
    inOutputMode(services, plan, trace, candidate, async (native) => {
      const source = await provider.stream(
        providerCall(plan, trace, candidate, native, attemptSignal(plan, candidate, scope, true)),
      );
      const opened = await openStream(source, scope, plan.streamTimeouts(candidate.offering.provider));
      return markStrictForm(opened, services, plan, candidate, native);
    });
}

/** Answers (completions and opened streams) constrained by OpenAI's strict form of the output schema. */
const strictFormAnswers = new WeakSet<object>();

/**
 * Whether an answer came constrained by the strict form, where a `null` for an optional property means "left out"
 * (the only nulls the output check may drop).
 */
export function answeredInStrictForm(answer: object): boolean {
  return strictFormAnswers.has(answer);
}

function markStrictForm<T extends object>(
  answer: T,
  services: Services,
  plan: CallPlan,
  candidate: Candidate,
  native: boolean,
): T {
  const output = plan.output;
  if (
    native &&
    output?.kind === 'json_schema' &&
    output.strict !== false &&
    services.registry.get(candidate.offering.provider)?.capabilities.strictForm &&
    planStrictSchema(output.modelSchema!).strict
  )
    strictFormAnswers.add(answer);
  return answer;
}

/** What the candidate's adapter is handed: the plan's body for its model, with the output requirement applied. */
function providerCall(
  plan: CallPlan,
  trace: CallTrace,
  candidate: Candidate,
  native: boolean,
  signal: AbortSignal | undefined,
  extraMessages: ChatCompletionMessageParam[] = [],
): ProviderCall {
  const body: Record<string, unknown> = { ...plan.body, model: candidate.offering.model };
  if (extraMessages.length > 0) body.messages = [...plan.body.messages, ...extraMessages];
  if (plan.output) applyOutputSpec(body, plan.output, native, candidate.model.supports.json_mode);
  return {
    body: body as unknown as ChatCompletionCreateParamsBase,
    model: candidate.model,
    modelKnown: candidate.known,
    promptCache: plan.promptCache,
    // A fallback model is a different model: the caller's reasoning setting was resolved against the requested one.
    reasoning: candidate.model === plan.model ? plan.reasoning : undefined,
    output: plan.output,
    signal,
    warn: trace.warn,
  };
}

/** The attempt's signal, when something may have to abort it (see `AttemptScope.signalFor`). */
function attemptSignal(
  plan: CallPlan,
  candidate: Candidate,
  scope: AttemptScope,
  streaming: boolean,
): AbortSignal | undefined {
  const provider = candidate.offering.provider;
  const limits = streaming ? plan.streamTimeouts(provider) : undefined;
  const streamLimits = limits !== undefined && (limits.firstTokenMs !== undefined || limits.idleMs !== undefined);
  return scope.signalFor({ attemptTimeoutMs: plan.attemptTimeoutMs(provider), streamLimits });
}

/**
 * Runs an attempt with the requested output format sent natively where the candidate's provider enforces it for
 * the model, else in the prompt. A provider that refuses the format natively (its error names `response_format`)
 * gets the prompted path at once, with a warning.
 */
async function inOutputMode<T>(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  candidate: Candidate,
  attempt: (native: boolean) => Promise<T>,
): Promise<T> {
  const output = plan.output;
  if (output === undefined) return attempt(false);
  const capabilities = services.registry.get(candidate.offering.provider)?.capabilities;
  if (!capabilities?.nativeOutput(candidate.model, output.kind)) return attempt(false);
  try {
    return await attempt(true);
  } catch (error) {
    if (!rejectsOutputFormat(error)) throw error;
    trace.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: `${candidate.offering.provider} rejected the schema natively; it was sent in the prompt instead.`,
    });
    return attempt(false);
  }
}

function rejectsOutputFormat(error: unknown): boolean {
  return (
    error instanceof ProviderError && error.status === 400 && (error.param?.startsWith('response_format') ?? false)
  );
}
