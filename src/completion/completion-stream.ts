import { SwitchyardError } from '../errors.ts';
import type { CompletionChunk, SwitchyardResponseInfo } from '../types.ts';

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
    for (let next = await chunks.next(); !next.done; next = await chunks.next())
      yield `data: ${JSON.stringify(next.value)}\n\n`;
    yield 'data: [DONE]\n\n';
  } catch (error) {
    // Our errors say what happened; anything else is a bug whose details stay out of the response.
    const body =
      error instanceof SwitchyardError
        ? error.toJSON()
        : { error: { message: 'The stream failed.', type: 'api_error', param: null, code: null } };
    yield `data: ${JSON.stringify(body)}\n\n`;
  } finally {
    // Reached early when the client goes away: stop the provider's stream.
    await chunks.return?.();
  }
}
