import { ProviderError, StreamInterruptedError, SwitchyardError } from './errors.ts';
import { expiredError, type AttemptScope } from './routing/attempt-scope.ts';
import { IdleWatch, type OpenedStream } from './routing/open-stream.ts';
import type { CompletionChunk, SwitchyardResponseInfo } from './types.ts';

/**
 * What `createCompletion({ stream: true })` resolves to: an async iterable of OpenAI `ChatCompletionChunk`s, exactly
 * as openai-node yields them, plus the `switchyard` routing facts. It can be iterated once.
 */
export class CompletionStream implements AsyncIterable<CompletionChunk> {
  /** Which provider serves the stream, the attempts it took, and warnings about dropped or converted parameters. */
  readonly switchyard: SwitchyardResponseInfo;
  readonly #chunks: AsyncIterable<CompletionChunk>;
  #iterated = false;

  constructor(chunks: AsyncIterable<CompletionChunk>, info: SwitchyardResponseInfo) {
    this.#chunks = chunks;
    this.switchyard = info;
  }

  [Symbol.asyncIterator](): AsyncIterator<CompletionChunk> {
    if (this.#iterated) throw new Error('A CompletionStream can be iterated only once.');
    this.#iterated = true;
    return this.#chunks[Symbol.asyncIterator]();
  }

  /** The stream as server-sent events (`data: {chunk}` lines, then `data: [DONE]`), for HTTP responses. */
  toSSE(): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const events = this.sseEvents();
    return new ReadableStream({
      async pull(controller) {
        const { value, done } = await events.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      },
      async cancel() {
        await events.return(undefined);
      },
    });
  }

  /**
   * The same events as strings, one per chunk (what a `node:http` server writes without a Web stream in between).
   * A failure mid-stream becomes a last `data: {"error": …}` event, as OpenAI sends it, instead of a throw. Like
   * iterating, it throws at once when the stream was already iterated.
   */
  sseEvents(): AsyncGenerator<string, void, undefined> {
    return eventsOf(this[Symbol.asyncIterator]());
  }
}

async function* eventsOf(chunks: AsyncIterator<CompletionChunk>): AsyncGenerator<string, void, undefined> {
  try {
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield `data: ${JSON.stringify(next.value)}\n\n`;
    yield 'data: [DONE]\n\n';
  } catch (error) {
    // Our errors say what happened; anything else is a bug whose details stay out of the response.
    const body = error instanceof SwitchyardError ? error.toJSON() : { error: { message: 'The stream failed.', type: 'api_error', param: null, code: null } };
    yield `data: ${JSON.stringify(body)}\n\n`;
  } finally {
    // Reached early when the client goes away: stop the provider's stream.
    await chunks.return?.();
  }
}

export interface RelayOptions {
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
export async function* relayChunks(opened: OpenedStream, options: RelayOptions): AsyncGenerator<CompletionChunk> {
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
    failure = error instanceof ProviderError && !(error instanceof StreamInterruptedError) ? interrupted(error, info) : error;
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
  options.observe(chunk);
  chunk.model = options.model;
  chunk.object = 'chat.completion.chunk';
  if (!options.includeUsage) {
    if (chunk.choices.length === 0) return undefined;
    delete chunk.usage;
  }
  options.check?.observe(chunk);
  return chunk;
}

function interrupted(error: ProviderError, info: SwitchyardResponseInfo): StreamInterruptedError {
  return new StreamInterruptedError(`The stream from ${error.provider} (${error.model}) broke off after it had started: ${error.message}`, {
    provider: error.provider,
    model: error.model,
    status: error.status,
    code: error.code ?? 'stream_interrupted',
    retryable: false,
    attempts: info.attempts,
    cause: error,
  });
}
