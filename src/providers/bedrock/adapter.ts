import type { BedrockRuntimeClient, ConverseResponse, ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { isRetryableStatus, ProviderError } from '../../errors.ts';
import type { CompletionChunk } from '../../types.ts';
import type { Provider, ProviderCall, ProviderCompletion, ResolvedProviderSettings } from '../provider.ts';
import { secretsOf } from '../provider.ts';
import {
  abortedByCaller,
  type ErrorScope,
  fromStatus,
  incompleteStream,
  invalidResponse,
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';
import { toConverseRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import { StreamConverter } from './stream-converter.ts';

/** Bedrock's exceptions that mean "try again": throttled, the model loading or busy, the service down. */
const RETRYABLE = new Set([
  'ThrottlingException',
  'ModelNotReadyException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelStreamErrorException',
]);

/**
 * AWS Bedrock through `@aws-sdk/client-bedrock-runtime` (Converse and ConverseStream). Credentials: explicit ones,
 * a Bedrock API key (bearer), else the SDK's standard chain. The SDK's own retries are off: retries are the gateway's.
 */
export async function createBedrockProvider(settings: ResolvedProviderSettings): Promise<Provider> {
  const sdk = await import('@aws-sdk/client-bedrock-runtime');
  const bearer = settings.apiKey !== 'unused' ? settings.apiKey : undefined;
  const client = new sdk.BedrockRuntimeClient({
    region: settings.region ?? 'us-east-1',
    endpoint: settings.baseURL,
    maxAttempts: 1,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(bearer ? { token: { token: bearer }, authSchemePreference: ['httpBearerAuth'] } : {}),
    requestHandler: { requestTimeout: settings.timeoutMs },
  });
  return new BedrockProvider(client, sdk, settings);
}

type Sdk = typeof import('@aws-sdk/client-bedrock-runtime');

class BedrockProvider implements Provider {
  readonly name = 'bedrock';
  readonly #client: BedrockRuntimeClient;
  readonly #sdk: Sdk;
  readonly #settings: ResolvedProviderSettings;
  #counter = 0;

  constructor(client: BedrockRuntimeClient, sdk: Sdk, settings: ResolvedProviderSettings) {
    this.#client = client;
    this.#sdk = sdk;
    this.#settings = settings;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const input = toConverseRequest(call);
    const model = input.modelId!;
    let answer: ConverseResponse;
    try {
      answer = await this.#client.send(new this.#sdk.ConverseCommand(input), signalOption(call.signal));
    } catch (error) {
      throw this.#toProviderError(error, model, call.signal);
    }
    if (!Array.isArray(answer?.output?.message?.content))
      throw invalidResponse(this.#scope(model), 'output.message.content is not a list of blocks');
    return toCompletion(answer, model, this.#nextId());
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const input = toConverseRequest(call);
    const model = input.modelId!;
    try {
      const response = await this.#client.send(new this.#sdk.ConverseStreamCommand(input), signalOption(call.signal));
      if (!response.stream) throw invalidResponse(this.#scope(model), 'the answer has no event stream');
      return this.#convert(response.stream, model, call.signal);
    } catch (error) {
      throw this.#toProviderError(error, model, call.signal);
    }
  }

  async *#convert(
    events: AsyncIterable<ConverseStreamOutput>,
    model: string,
    signal: AbortSignal | undefined,
  ): AsyncIterable<CompletionChunk> {
    const converter = new StreamConverter(this.#nextId(), model);
    try {
      for await (const event of events) yield* converter.convert(event);
    } catch (error) {
      throw this.#toProviderError(error, model, signal, 'stream');
    }
    if (signal?.aborted) throw abortedByCaller(this.#scope(model));
    if (!converter.finished) throw incompleteStream(this.#scope(model), 'messageStop');
  }

  #nextId(): string {
    this.#counter += 1;
    return `chatcmpl-bedrock-${Date.now().toString(36)}-${this.#counter}`;
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

  /** The SDK's failure (an exception named by Bedrock, with the HTTP status in `$metadata`) as a provider error. */
  #toProviderError(
    error: unknown,
    model: string,
    signal: AbortSignal | undefined,
    phase: 'request' | 'stream' = 'request',
  ): ProviderError {
    if (error instanceof ProviderError) return error;
    const scope = this.#scope(model);
    const failure = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    if (signal?.aborted || failure?.name === 'AbortError') return abortedByCaller(scope, error);
    if (failure?.name === 'TimeoutError' || failure?.name === 'RequestTimeout') return timedOut(scope, error);
    const name = failure?.name ?? 'Error';
    const status = failure?.$metadata?.httpStatusCode;
    if (phase === 'stream' && RETRYABLE.has(name))
      return streamError(scope, `${name}: ${failure.message ?? ''}`, {
        status: status ?? 503,
        code: name,
        cause: error,
      });
    if (status === undefined) {
      if (name === 'CredentialsProviderError')
        return fromStatus(scope, 401, `no AWS credentials were found (${failure.message})`, {
          code: 'missing_credentials',
          retryable: false,
          cause: error,
        });
      return unreachable(scope, error, phase);
    }
    return fromStatus(scope, status, failure.message ?? name, {
      code: name,
      detail: name,
      retryable: RETRYABLE.has(name) || isRetryableStatus(status),
      cause: error,
    });
  }
}

function signalOption(signal: AbortSignal | undefined): { abortSignal: AbortSignal } | Record<string, never> {
  return signal ? { abortSignal: signal } : {};
}
