import type { BudgetHold } from '../budgets/budget-ledger.ts';
import { estimatePromptTokens } from '../budgets/estimate-cost.ts';
import type { ProviderOffering } from '../catalog/catalog-schema.ts';
import { ProviderError, StreamInterruptedError } from '../errors.ts';
import { StreamRecorder, type StreamSummary } from '../records/stream-recorder.ts';
import type { CompletionChunk, CompletionRequest, SwitchyardResponseInfo } from '../types.ts';
import { type AttemptScope, expiredError } from './attempt-scope.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { CompletionStream } from './completion-stream.ts';
import { costOf, factsOf, recordCall, responseInfo } from './finalise.ts';
import { IdleWatch, type OpenedStream } from './open-stream.ts';
import type { AttemptResult } from './run-attempts.ts';
import type { Services } from './services.ts';
import { streamChecks } from './stream-checks.ts';

/**
 * Stage 4, for streams: the opened provider stream as the caller's `CompletionStream`. When it ends (finished,
 * failed, or left early) its usage is billed, its budget hold settled and the call recorded. A stream that ended
 * before its usage chunk (every provider sends it last) is billed what it consumed, estimated: the prompt, and the
 * text streamed so far, with a `usage_estimated` warning in the response's and the record's warnings.
 */
export function relayStream(
  services: Services,
  request: CompletionRequest,
  plan: CallPlan,
  trace: CallTrace,
  opened: AttemptResult<OpenedStream>,
  hold?: BudgetHold,
  cacheMiss?: (summary: StreamSummary, info: SwitchyardResponseInfo) => void,
): CompletionStream {
  const info = responseInfo(plan, trace, opened, opened.candidate.known);
  if (cacheMiss) info.cache = 'miss';
  const observed = new StreamRecorder();
  const pricing: ProviderOffering['pricing'] = opened.candidate.offering.pricing;
  const chunks = relayChunks(opened.value, {
    model: opened.candidate.model.id,
    includeUsage: plan.includeUsage,
    info,
    scope: opened.scope,
    idleMs: plan.streamTimeouts(opened.candidate.offering.provider).idleMs,
    observe: (chunk) => observed.observe(chunk),
    check: streamChecks(plan, trace, opened, observed),
    onEnd: (error) => {
      const summary = observed.summary();
      // Before any estimate: the cache keeps only a stream the provider finished, its usage reported.
      if (error === undefined) cacheMiss?.(summary, info);
      if (!summary.usage) {
        summary.usage = observed.estimatedUsage(estimatePromptTokens(plan.body));
        trace.warn(USAGE_ESTIMATED);
      }
      trace.billed.push({ usage: summary.usage, pricing });
      Object.assign(info, costOf(trace));
      const outcome = { info, stream: summary, ...(error === undefined ? {} : { error }) };
      recordCall(services, factsOf(request, plan), trace, outcome, hold);
    },
  });
  return new CompletionStream(chunks, info);
}

const USAGE_ESTIMATED = {
  code: 'usage_estimated',
  message:
    'The stream ended before the provider reported its usage (left early, or broken off): the tokens billed are ' +
    'estimated from the prompt and the text streamed, and the call is charged for them against the budgets.',
};

interface RelayOptions {
  /** The catalog id every chunk's `model` is set to. */
  model: string;
  /** Keep the usage chunk (the caller sent `stream_options.include_usage`). */
  includeUsage: boolean;
  info: SwitchyardResponseInfo;
  /** Sees every provider chunk, the usage chunk included: the call record. */
  observe: (chunk: CompletionChunk) => void;
  /** Sees every chunk the caller gets, and may fail the stream at its end: the structured-output check. */
  check?: { observe(chunk: CompletionChunk): void; finish(): void } | undefined;
  /** Called once when the caller's iteration ends: finished, failed (with the error) or stopped early. */
  onEnd: (error?: unknown) => void;
  /** The attempt that serves the stream: disposed of when the stream ends. */
  scope: AttemptScope;
  /** `streamIdleTimeoutMs`: the longest wait for the provider's next chunk. */
  idleMs?: number | undefined;
}

/**
 * Relays the provider's chunks to the caller in one layer: the recorder sees each, `model` is rewritten to the
 * catalog id, the usage chunk is kept only when asked for, the output check runs, a provider that goes quiet past
 * `idleMs` is cut off, and a failure after the first chunk becomes a `StreamInterruptedError`. `opened` holds the
 * chunks the attempt already read (up to the first with content).
 */
async function* relayChunks(opened: OpenedStream, options: RelayOptions): AsyncGenerator<CompletionChunk> {
  const { check, scope, info } = options;
  const { rest } = opened;
  const idle = options.idleMs === undefined ? undefined : new IdleWatch(scope, options.idleMs);
  let failure: unknown;
  try {
    for (const chunk of opened.head) {
      const relayed = relay(chunk, options);
      if (relayed) yield relayed;
    }
    if (!opened.ended) {
      for (;;) {
        idle?.waiting();
        const next = await rest.next();
        idle?.received();
        if (next.done) break;
        const relayed = relay(next.value, options);
        if (relayed) yield relayed;
      }
    }
    check?.finish();
  } catch (thrown) {
    const expired = scope.expired;
    const error = expired ? expiredError(expired, { provider: info.provider, model: info.provider_model }) : thrown;
    failure =
      error instanceof ProviderError && !(error instanceof StreamInterruptedError) ? interrupted(error, info) : error;
    throw failure;
  } finally {
    idle?.stop();
    try {
      await rest.return?.();
    } finally {
      scope.dispose();
      // Recorded even when releasing the provider's stream fails.
      options.onEnd(failure);
    }
  }
}

/** One provider chunk as the caller gets it, or `undefined` for a usage chunk the caller did not ask for. */
function relay(chunk: CompletionChunk, options: RelayOptions): CompletionChunk | undefined {
  chunk.model = options.model;
  chunk.object = 'chat.completion.chunk';
  // The check first: it may unwrap the content, and the record keeps what the caller gets.
  options.check?.observe(chunk);
  options.observe(chunk);
  if (!options.includeUsage) {
    if (chunk.choices.length === 0) return undefined;
    delete chunk.usage;
  }
  return chunk;
}

function interrupted(error: ProviderError, info: SwitchyardResponseInfo): StreamInterruptedError {
  return new StreamInterruptedError(
    `The stream from ${error.provider} (${error.model}) broke off after it had started: ${error.message}`,
    {
      provider: error.provider,
      model: error.model,
      status: error.status,
      code: error.code ?? 'stream_interrupted',
      retryable: false,
      attempts: info.attempts,
      cause: error,
    },
  );
}
