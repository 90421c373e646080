import type Anthropic from '@anthropic-ai/sdk';
import { checkShape } from '../../internal/shape.ts';
import type { CompletionChunk } from '../../types.ts';
import { type ErrorMapper, errorMapper } from '../error-mapper.ts';
import {
  type Provider,
  type ProviderCall,
  type ProviderCompletion,
  type ResolvedProviderSettings,
  sdkClientOptions,
} from '../provider.ts';
import { abortedByCaller, incompleteStream, invalidResponse } from '../provider-errors.ts';
import { checkMessage, checkStreamEvent } from './answer-shape.ts';
import { type Params, toAnthropicRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import { anthropicErrors } from './map-anthropic-error.ts';
import { apiVersionFor } from './sampling.ts';
import { StreamConverter } from './stream-converter.ts';

type AnthropicSDK = typeof import('@anthropic-ai/sdk');
type RequestOptions = { signal: AbortSignal | null; headers?: Record<string, string> };

/**
 * The Anthropic adapter, on the official `@anthropic-ai/sdk` (1.x, API version 2026-10-21, or the model's own where
 * the request sends sampling parameters): OpenAI requests are translated to the Messages API and the answers back
 * (the conversions are the other files of this folder).
 */
export async function createAnthropicProvider(settings: ResolvedProviderSettings): Promise<Provider> {
  const sdk = await import('@anthropic-ai/sdk');
  const client = new sdk.default({ ...sdkClientOptions(settings), baseURL: settings.baseURL });
  return new AnthropicProvider(client, sdk, settings, 'anthropic');
}

/**
 * The Anthropic adapter on a client of the same API made elsewhere (`@anthropic-ai/vertex-sdk`'s), answering as
 * the provider `name`: the conversions are the same.
 */
export async function claudeOn(
  client: Pick<Anthropic, 'post'>,
  settings: ResolvedProviderSettings,
  name: string,
): Promise<Provider> {
  return new AnthropicProvider(client as Anthropic, await import('@anthropic-ai/sdk'), settings, name);
}

class AnthropicProvider implements Provider {
  readonly name: string;
  readonly #client: Anthropic;
  readonly #errors: ErrorMapper;

  constructor(client: Anthropic, sdk: AnthropicSDK, settings: ResolvedProviderSettings, name: string) {
    this.name = name;
    this.#client = client;
    this.#errors = errorMapper(name, settings, anthropicErrors(sdk));
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const params = toAnthropicRequest(call, false, this.name);
    try {
      const message = await this.#send<Anthropic.Message>({ ...params, stream: false }, this.#options(call, params));
      const problem = checkShape(checkMessage, message);
      if (problem) throw invalidResponse(this.#errors.scope(params.model), problem);
      return toCompletion(message);
    } catch (error) {
      throw this.#errors.map(error, params.model, { signal: call.signal });
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const params = toAnthropicRequest(call, true, this.name);
    try {
      // Resolves once the response headers arrived: HTTP errors are thrown here, in-stream ones while iterating.
      const events = await this.#send<AsyncIterable<Anthropic.RawMessageStreamEvent>>(
        { ...params, stream: true },
        this.#options(call, params),
      );
      return this.#convertEvents(events, params.model, call.signal);
    } catch (error) {
      throw this.#errors.map(error, params.model, { signal: call.signal });
    }
  }

  /**
   * `POST /v1/messages` as the SDK's `messages.create` sends it, through the client's own `post` (its auth, retries,
   * timeout and SSE parsing; on Vertex, its `:rawPredict` routing). Not `messages.create` itself: that writes to the
   * console (`console.warn`, no option turns it off) on every call to a model the SDK lists as deprecated, noise in
   * a gateway's output. The catalog's `model_deprecated` warning says it in the answer instead.
   */
  #send<T>(body: Params & { stream: boolean }, options: RequestOptions): Promise<T> {
    return this.#client.post<T>('/v1/messages', { body, ...options, stream: body.stream });
  }

  /** The caller's signal, and the model's own API version where the request sends sampling parameters. */
  #options(call: ProviderCall, params: Params): RequestOptions {
    const version = apiVersionFor(call, params, this.name);
    return { signal: call.signal ?? null, ...(version ? { headers: { 'anthropic-version': version } } : {}) };
  }

  async *#convertEvents(
    events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
    model: string,
    signal: AbortSignal | undefined,
  ): AsyncIterable<CompletionChunk> {
    const converter = new StreamConverter(model);
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next: IteratorResult<Anthropic.RawMessageStreamEvent>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw this.#errors.map(error, model, { signal, phase: 'stream' });
        }
        if (next.done) break;
        // Events already buffered would keep coming after an abort; stop at once instead.
        if (signal?.aborted) break;
        const problem = checkShape(checkStreamEvent, next.value);
        if (problem) throw invalidResponse(this.#errors.scope(model), `stream event: ${problem}`);
        yield* converter.handle(next.value);
      }
    } finally {
      // Stops the HTTP response when the caller leaves early.
      await iterator.return?.();
    }
    // The SDK ends a stream quietly when it was aborted; the caller must still learn that it did not finish.
    if (signal?.aborted) throw abortedByCaller(this.#errors.scope(model), signal.reason);
    if (!converter.finished) throw incompleteStream(this.#errors.scope(model), 'the message was complete');
    yield converter.usageChunk();
  }
}
