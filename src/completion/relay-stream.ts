import { ProviderError, StreamInterruptedError } from '../errors.ts';
import { StreamRecorder, type StreamSummary } from '../records/stream-recorder.ts';
import type { CompletionChunk, SwitchyardResponseInfo } from '../types.ts';
import { streamTimeoutsOf } from './attempt-policy.ts';
import { expiredError } from './attempt-scope.ts';
import { CompletionStream } from './completion-stream.ts';
import { costOf, factsOf, recordCall, responseInfo } from './finalise.ts';
import { IdleWatch, type OpenedStream } from './open-stream.ts';
import { journalOpenStream } from './open-stream-record.ts';
import type { AttemptResult } from './run-attempts.ts';
import type { Services } from './services.ts';
import type { BudgetSettlement } from './stages.ts';
import { streamChecks } from './stream-checks.ts';
import { billSegment, canFailOver, openContinuation, type Segment, type StreamCall } from './stream-failover.ts';
import { StreamSplice, sumUsage } from './stream-splice.ts';
import { ToolCallHold } from './tool-call-hold.ts';

/**
 * Stage 4, for streams: the opened provider stream as the caller's `CompletionStream`. When it ends (finished,
 * failed, or left early) its usage is billed, its budget hold settled and the call recorded. A stream that ended
 * before its usage chunk (every provider sends it last) is billed what it consumed, estimated: the prompt, and the
 * text streamed so far, with a `usage_estimated` warning in the response's and the record's warnings. A stream that
 * breaks after content reached the caller goes on at the next candidate where it can (`stream-failover.ts`).
 */
export function relayStream(
  services: Services,
  call: StreamCall,
  opened: AttemptResult<OpenedStream>,
  settle?: BudgetSettlement,
  cacheMiss?: (summary: StreamSummary, info: SwitchyardResponseInfo) => void,
): CompletionStream {
  const { request, plan, trace } = call;
  const info = responseInfo(plan, trace, opened, opened.candidate.known);
  if (cacheMiss) info.cache = 'miss';
  const observed = new StreamRecorder();
  const relay = new Relay(services, call, info, observed);
  // Once the caller reads it: the record a process killed meanwhile leaves (a stream never read is never recorded).
  let closeOpenRecord = () => {};
  const opening = () => (closeOpenRecord = journalOpenStream(services, factsOf(request, plan), trace, info));
  const chunks = relay.chunks(opened, streamChecks(plan, trace, opened, observed), opening, (segment, error) => {
    const summary = observed.summary();
    // Before any estimate: the cache keeps only a stream the provider finished in one go, its usage reported.
    if (error === undefined && relay.splice.earlier === undefined) cacheMiss?.(summary, info);
    const usage = billSegment(call, segment);
    const earlier = relay.splice.earlier;
    summary.usage = earlier ? sumUsage(earlier, usage) : usage;
    Object.assign(info, costOf(trace));
    const outcome = { info, stream: summary, ...(error === undefined ? {} : { error }) };
    recordCall(services, factsOf(request, plan), trace, outcome, settle);
    closeOpenRecord();
  });
  return new CompletionStream(chunks, info);
}

type Check = ReturnType<typeof streamChecks>;

/**
 * Relays the provider's chunks to the caller in one layer: `model` is rewritten to the catalog id, the usage chunk
 * is kept only when asked for, the output check runs, a provider that goes quiet past its idle limit is cut off, and
 * a failure after the first chunk goes on at the next candidate (spliced in) or becomes a `StreamInterruptedError`.
 */
class Relay {
  readonly splice = new StreamSplice();
  readonly #services: Services;
  readonly #call: StreamCall;
  readonly #info: SwitchyardResponseInfo;
  /** Every chunk the caller gets (spliced): the call record, and the partial answer a continuation carries. */
  readonly #observed: StreamRecorder;

  constructor(services: Services, call: StreamCall, info: SwitchyardResponseInfo, observed: StreamRecorder) {
    this.#services = services;
    this.#call = call;
    this.#info = info;
    this.#observed = observed;
  }

  /**
   * `onStart` is called when the caller starts reading; `onEnd` once, with the last segment, when the caller's
   * iteration ends: finished, failed or left.
   */
  async *chunks(
    first: AttemptResult<OpenedStream>,
    check: Check,
    onStart: () => void,
    onEnd: (segment: Segment, error?: unknown) => void,
  ): AsyncGenerator<CompletionChunk> {
    onStart();
    let segment = this.#segment(first);
    let failure: unknown;
    try {
      // One loop for every segment and chunk, no delegation: each layer between the provider and the caller costs a
      // promise and an iterator result per chunk.
      for (;;) {
        const { head, ended, rest } = segment.opened.value;
        const { scope, candidate } = segment.opened;
        const { idleMs } = streamTimeoutsOf(
          this.#services,
          this.#call.plan.streamTimeouts,
          candidate.offering.provider,
        );
        const idle = idleMs === undefined ? undefined : new IdleWatch(scope, idleMs);
        // Tool calls held back only while a break could still go on elsewhere.
        const toolCalls = canFailOver(this.#call, candidate) ? new ToolCallHold() : undefined;
        try {
          try {
            for (let index = 0; ; ) {
              let chunk: CompletionChunk;
              if (index < head.length) chunk = head[index++]!;
              else {
                if (ended) break;
                idle?.waiting();
                const next = await rest.next();
                idle?.received();
                if (next.done) break;
                chunk = next.value;
              }
              segment.recorder.observe(chunk);
              const passed = this.#pass(chunk, toolCalls);
              if (passed === undefined) continue;
              if (!Array.isArray(passed)) {
                const out = this.#out(passed, check);
                if (out) yield out;
              } else
                for (const each of passed) {
                  const out = this.#out(each, check);
                  if (out) yield out;
                }
            }
          } finally {
            // The provider stream released and the attempt disposed of however the segment ends.
            idle?.stop();
            try {
              await rest.return?.();
            } finally {
              scope.dispose();
            }
          }
          break;
        } catch (thrown) {
          const error = this.#failureOf(thrown, segment);
          // Cut after the answer finished (only its usage left to come): it is whole, and ends here, billed an
          // estimate; going on elsewhere would send it, its tool calls too, a second time. An answer the provider
          // got wrong (a usage it could not have meant) is still its error.
          if (
            error instanceof ProviderError &&
            error.code !== 'invalid_response' &&
            this.#observed.summary().output?.finish_reason
          )
            break;
          const next = await this.#continuation(segment, error);
          if (next === undefined) throw asInterrupted(error, this.#info);
          segment = this.#segment(next);
        }
      }
      for (const chunk of this.splice.flush()) {
        const out = this.#out(chunk, check);
        if (out) yield out;
      }
      check?.finish();
    } catch (thrown) {
      failure = thrown;
      throw thrown;
    } finally {
      onEnd(segment, failure);
    }
  }

  #segment(opened: AttemptResult<OpenedStream>): Segment {
    return { opened, attempt: this.#call.trace.attempts.at(-1), recorder: new StreamRecorder() };
  }

  /** What a provider chunk becomes: itself (no array made), none, or several (held tool calls, a splice's start). */
  #pass(chunk: CompletionChunk, toolCalls: ToolCallHold | undefined): CompletionChunk | CompletionChunk[] | undefined {
    const held = toolCalls === undefined ? chunk : toolCalls.pass(chunk);
    if (held === undefined) return undefined;
    if (!Array.isArray(held)) return this.splice.pass(held);
    return held.flatMap((each) => this.splice.pass(each));
  }

  /** The gateway's own limit speaks for itself, whatever the adapter made of the abort. */
  #failureOf(thrown: unknown, { opened }: Segment): unknown {
    const expired = opened.scope.expired;
    if (!expired) return thrown;
    return expiredError(expired, { provider: opened.provider, model: opened.candidate.offering.model });
  }

  async #continuation(broken: Segment, error: unknown): Promise<AttemptResult<OpenedStream> | undefined> {
    if (!(error instanceof ProviderError) || error instanceof StreamInterruptedError) return undefined;
    if (!canFailOver(this.#call, broken.opened.candidate)) return undefined;
    const partial = this.#observed.summary().output?.content ?? '';
    const next = await openContinuation(this.#services, this.#call, broken, error, partial);
    if (next) this.splice.continueFrom(partial, billSegment(this.#call, broken));
    return next;
  }

  /**
   * The chunk as the caller gets it (`model` rewritten, checked, recorded); `undefined` when it is left out: a usage
   * chunk the caller did not ask for (still recorded).
   */
  #out(chunk: CompletionChunk, check: Check): CompletionChunk | undefined {
    chunk.model = this.#info.model;
    chunk.object = 'chat.completion.chunk';
    // The check first: it may unwrap the content, and the record keeps what the caller gets.
    check?.observe(chunk);
    this.#observed.observe(chunk);
    if (this.#call.plan.includeUsage) return chunk;
    if (chunk.choices.length === 0) return undefined;
    if (!('usage' in chunk)) return chunk;
    // A copy without it, not `delete`: a deleted key leaves an object in V8's dictionary form, and each chunk's
    // JSON.stringify then takes its slow path (OpenAI sends `usage: null` in every chunk once asked for usage).
    const { usage: _usage, ...withoutUsage } = chunk;
    return withoutUsage;
  }
}

/** A provider's failure after the caller had content, as the caller gets it; anything else as it is. */
function asInterrupted(error: unknown, info: SwitchyardResponseInfo): unknown {
  if (!(error instanceof ProviderError) || error instanceof StreamInterruptedError) return error;
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
