import type Anthropic from '@anthropic-ai/sdk';
import { ProviderError } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { checkShape } from '../../internal/shape.ts';
import type { CompletionChunk } from '../../types.ts';
import {
  type Provider,
  type ProviderCall,
  type ProviderCompletion,
  type ResolvedProviderSettings,
  sdkClientOptions,
  secretsOf,
} from '../provider.ts';
import {
  abortedByCaller,
  answerTooLarge,
  type ErrorScope,
  fromStatus,
  incompleteStream,
  invalidResponse,
  refusedBySdk,
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';
import { checkMessage, checkStreamEvent } from './answer-shape.ts';
import { type Params, toAnthropicRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import { apiVersionFor } from './sampling.ts';
import { StreamConverter } from './stream-converter.ts';

type AnthropicSDK = typeof import('@anthropic-ai/sdk');

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
  client: Pick<Anthropic, 'messages'>,
  settings: ResolvedProviderSettings,
  name: string,
): Promise<Provider> {
  return new AnthropicProvider(client as Anthropic, await import('@anthropic-ai/sdk'), settings, name);
}

class AnthropicProvider implements Provider {
  readonly name: string;
  readonly #client: Anthropic;
  readonly #sdk: AnthropicSDK;
  readonly #settings: ResolvedProviderSettings;

  constructor(client: Anthropic, sdk: AnthropicSDK, settings: ResolvedProviderSettings, name: string) {
    this.name = name;
    this.#client = client;
    this.#sdk = sdk;
    this.#settings = settings;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const params = toAnthropicRequest(call, false, this.name);
    try {
      const message = await this.#client.messages.create({ ...params, stream: false }, this.#options(call, params));
      const problem = checkShape(checkMessage, message);
      if (problem) throw invalidResponse(this.#scope(params.model), problem);
      return toCompletion(message);
    } catch (error) {
      throw this.#toProviderError(error, params.model, call.signal);
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const params = toAnthropicRequest(call, true, this.name);
    try {
      // Resolves once the response headers arrived: HTTP errors are thrown here, in-stream ones while iterating.
      const events = await this.#client.messages.create({ ...params, stream: true }, this.#options(call, params));
      return this.#convertEvents(events, params.model, call.signal);
    } catch (error) {
      throw this.#toProviderError(error, params.model, call.signal);
    }
  }

  /** The caller's signal, and the model's own API version where the request sends sampling parameters. */
  #options(call: ProviderCall, params: Params): { signal: AbortSignal | null; headers?: Record<string, string> } {
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
          throw this.#toProviderError(error, model, signal);
        }
        if (next.done) break;
        // Events already buffered would keep coming after an abort; stop at once instead.
        if (signal?.aborted) break;
        const problem = checkShape(checkStreamEvent, next.value);
        if (problem) throw invalidResponse(this.#scope(model), `stream event: ${problem}`);
        yield* converter.handle(next.value);
      }
    } finally {
      // Stops the HTTP response when the caller leaves early.
      await iterator.return?.();
    }
    // The SDK ends a stream quietly when it was aborted; the caller must still learn that it did not finish.
    if (signal?.aborted) throw abortedByCaller(this.#scope(model), signal.reason);
    if (!converter.finished) throw incompleteStream(this.#scope(model), 'the message was complete');
    yield converter.usageChunk();
  }

  #scope(model: string): ErrorScope {
    const settings = this.#settings;
    return {
      provider: this.name,
      model,
      secrets: secretsOf(settings),
      baseURL: settings.baseURL,
      timeoutMs: settings.timeoutMs,
    };
  }

  /** The SDK's failure as one of the shared provider errors; our own errors (from the conversion) pass unchanged. */
  #toProviderError(error: unknown, model: string, signal: AbortSignal | undefined): unknown {
    if (error instanceof ProviderError || !(error instanceof Error)) return error;
    const sdk = this.#sdk;
    const scope = this.#scope(model);
    const tooLarge = answerTooLarge(scope, error);
    if (tooLarge) return tooLarge;
    if (error instanceof sdk.APIUserAbortError || signal?.aborted) return abortedByCaller(scope, error);
    if (error instanceof sdk.APIConnectionTimeoutError) return timedOut(scope, error);
    if (error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError)) {
      const upstream = error.apiMessage ?? error.message;
      const code = error.type ?? null;
      if (error.status === undefined) {
        // An `event: error` after HTTP 200: the request was accepted, then the model failed (overloaded, most often).
        return streamError(scope, upstream, { status: code === 'overloaded_error' ? 529 : 502, code, cause: error });
      }
      return fromStatus(scope, error.status, upstream, {
        code,
        param: rejectedField(upstream),
        retryAfterMs: parseRetryAfter(error.headers),
        cause: error,
      });
    }
    if (error instanceof sdk.AnthropicError && !(error instanceof sdk.APIConnectionError)) {
      // Refused by the SDK before anything was sent: retrying the same request cannot help.
      return refusedBySdk(scope, error.message, error);
    }
    if (error instanceof SyntaxError) return invalidResponse(scope, `the body is not JSON (${error.message})`, error);
    // APIConnectionError, and network failures while reading the body of a stream.
    return unreachable(scope, error);
  }
}

/**
 * The request field an Anthropic error names: its messages open with the field's path (`output_config.format.schema:
 * …`, `messages.2.content: …`). The output format is reported as our `response_format`, which it came from.
 */
function rejectedField(message: string): string | null {
  const field = /^([a-z_]+(?:\.[\w]+)*): /.exec(message)?.[1];
  if (!field) return null;
  return /^output_(config\.)?format/.test(field) ? 'response_format' : field;
}
