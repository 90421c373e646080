import { ProviderError, StreamInterruptedError, SwitchyardError } from './errors.ts';
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
   * A failure mid-stream becomes a last `data: {"error": …}` event, as OpenAI sends it, instead of a throw.
   */
  async *sseEvents(): AsyncGenerator<string, void, undefined> {
    try {
      for await (const chunk of this) yield `data: ${JSON.stringify(chunk)}\n\n`;
      yield 'data: [DONE]\n\n';
    } catch (error) {
      // Our errors say what happened; anything else is a bug whose details stay out of the response.
      const body = error instanceof SwitchyardError ? error.toJSON() : { error: { message: 'The stream failed.', type: 'api_error', param: null, code: null } };
      yield `data: ${JSON.stringify(body)}\n\n`;
    }
  }
}

/**
 * Forwards the provider's chunks to the caller: rewrites `model` to the catalog id, keeps the usage chunk only
 * when the caller asked for it, and turns a failure after the first chunk into a `StreamInterruptedError`.
 */
export async function* forwardChunks(
  first: CompletionChunk,
  rest: AsyncIterator<CompletionChunk>,
  options: { model: string; includeUsage: boolean; info: SwitchyardResponseInfo },
): AsyncGenerator<CompletionChunk> {
  let chunk: CompletionChunk | undefined = first;
  try {
    while (chunk) {
      chunk.model = options.model;
      if (options.includeUsage) yield chunk;
      else if (chunk.choices.length > 0) {
        delete chunk.usage;
        yield chunk;
      }
      const next = await rest.next();
      chunk = next.done ? undefined : next.value;
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    throw new StreamInterruptedError(`The stream from ${error.provider} (${error.model}) broke off after it had started: ${error.message}`, {
      provider: error.provider,
      model: error.model,
      status: error.status,
      code: error.code ?? 'stream_interrupted',
      retryable: false,
      attempts: options.info.attempts,
      cause: error,
    });
  } finally {
    await rest.return?.();
  }
}
