import type Anthropic from '@anthropic-ai/sdk';
import { AuthenticationError, ProviderError, RateLimitError, isRetryableStatus } from '../errors.ts';
import { parseRetryAfter } from '../internal/parse-retry-after.ts';
import { redactSecrets, redactedCause } from '../internal/redact.ts';
import type { CompletionChunk } from '../types.ts';
import { StreamConverter, toAnthropicRequest, toCompletion } from './anthropic-convert.ts';
import { sdkClientOptions, type Provider, type ProviderCall, type ProviderCompletion, type ResolvedProviderSettings } from './provider.ts';

type AnthropicSDK = typeof import('@anthropic-ai/sdk');

/**
 * The Anthropic adapter, on the official `@anthropic-ai/sdk` (1.x, API version 2026-10-21): OpenAI requests are
 * translated to the Messages API and the answers back (conversions in `anthropic-convert.ts`).
 */
export async function createAnthropicProvider(settings: ResolvedProviderSettings): Promise<Provider> {
  const sdk = await import('@anthropic-ai/sdk');
  const client = new sdk.default({ ...sdkClientOptions(settings), baseURL: settings.baseURL });
  return new AnthropicProvider(client, sdk, settings);
}

class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  readonly #client: Anthropic;
  readonly #sdk: AnthropicSDK;
  readonly #settings: ResolvedProviderSettings;

  constructor(client: Anthropic, sdk: AnthropicSDK, settings: ResolvedProviderSettings) {
    this.#client = client;
    this.#sdk = sdk;
    this.#settings = settings;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const params = toAnthropicRequest(call, false);
    try {
      const message = await this.#client.messages.create({ ...params, stream: false }, { signal: call.signal ?? null });
      return toCompletion(message);
    } catch (error) {
      throw this.#toProviderError(error, params.model, call.signal);
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const params = toAnthropicRequest(call, true);
    try {
      // Resolves once the response headers arrived: HTTP errors are thrown here, in-stream ones while iterating.
      const events = await this.#client.messages.create({ ...params, stream: true }, { signal: call.signal ?? null });
      return this.#convertEvents(events, params.model, call.signal);
    } catch (error) {
      throw this.#toProviderError(error, params.model, call.signal);
    }
  }

  async *#convertEvents(events: AsyncIterable<Anthropic.RawMessageStreamEvent>, model: string, signal: AbortSignal | undefined): AsyncIterable<CompletionChunk> {
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
        yield* converter.handle(next.value);
      }
    } finally {
      // Stops the HTTP response when the caller leaves early.
      await iterator.return?.();
    }
    // The SDK ends a stream quietly when it was aborted; the caller must still learn that it did not finish.
    if (signal?.aborted) throw this.#aborted(model, signal.reason);
    if (!converter.finished) {
      throw new ProviderError(`The stream from anthropic (${model}) ended before the message was complete.`, {
        provider: this.name, model, status: 502, code: 'incomplete_stream', type: 'api_error', retryable: true,
      });
    }
    yield converter.usageChunk();
  }

  #aborted(model: string, cause: unknown): ProviderError {
    return new ProviderError(`The request to anthropic (${model}) was aborted by the caller.`, {
      provider: this.name, model, status: 499, code: 'aborted', retryable: false, cause: redactedCause(cause, [this.#settings.apiKey]),
    });
  }

  #toProviderError(error: unknown, model: string, signal: AbortSignal | undefined): unknown {
    // Our own errors (an InvalidRequestError from the conversion) pass unchanged: they are not the provider's doing.
    if (error instanceof ProviderError || !(error instanceof Error)) return error;
    const sdk = this.#sdk;
    const name = this.name;
    const secrets = [this.#settings.apiKey];
    if (error instanceof sdk.APIUserAbortError || signal?.aborted) return this.#aborted(model, error);
    if (error instanceof sdk.APIConnectionTimeoutError) {
      return new ProviderError(`anthropic (${model}) did not answer within ${this.#settings.timeoutMs} ms.`, {
        provider: name, model, status: 408, code: 'timeout', type: 'timeout_error', retryable: true, cause: redactedCause(error, [this.#settings.apiKey]),
      });
    }
    if (error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError)) {
      const upstream = redactSecrets(error.apiMessage ?? error.message, secrets);
      const code = error.type ?? null;
      if (error.status === undefined) {
        // An `event: error` after HTTP 200: the request was accepted, then the model failed (overloaded, most often).
        const status = code === 'overloaded_error' ? 529 : 502;
        return new ProviderError(`anthropic (${model}) reported an error inside the stream: ${upstream}`, {
          provider: name, model, status, code: code ?? 'stream_error', type: 'api_error', retryable: true, cause: redactedCause(error, [this.#settings.apiKey]),
        });
      }
      const status = error.status;
      const options = {
        provider: name, model, status, code, retryable: isRetryableStatus(status), retryAfterMs: parseRetryAfter(error.headers), cause: redactedCause(error, [this.#settings.apiKey]),
      };
      const message = `anthropic (${model}) answered ${status}: ${upstream}`;
      if (status === 401 || status === 403) return new AuthenticationError(message, options);
      if (status === 429) return new RateLimitError(message, options);
      return new ProviderError(message, options);
    }
    if (error instanceof sdk.AnthropicError && !(error instanceof sdk.APIConnectionError)) {
      // Refused by the SDK before anything was sent: retrying the same request cannot help.
      return new ProviderError(`The Anthropic SDK refused the request to ${model}: ${redactSecrets(error.message, secrets)}`, {
        provider: name, model, status: 400, code: 'client_error', retryable: false, cause: redactedCause(error, [this.#settings.apiKey]),
      });
    }
    if (error instanceof SyntaxError) {
      return new ProviderError(`anthropic (${model}) answered with a body that is not valid JSON: ${redactSecrets(error.message, secrets)}`, {
        provider: name, model, status: 502, code: 'invalid_response', type: 'api_error', retryable: true, cause: redactedCause(error, secrets),
      });
    }
    // APIConnectionError, and network failures while reading the body of a stream.
    return new ProviderError(`Could not reach anthropic (${model}) at ${this.#settings.baseURL}: ${redactSecrets(describeCause(error), secrets)}`, {
      provider: name, model, status: 502, code: 'connection_error', type: 'api_error', retryable: true, cause: redactedCause(error, [this.#settings.apiKey]),
    });
  }
}

function describeCause(error: Error): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
