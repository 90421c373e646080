import type { BedrockRuntimeClient, ConverseResponse, ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { importOptional } from '../../internal/optional-package.ts';
import type { CompletionChunk } from '../../types.ts';
import { type ErrorMapper, errorMapper } from '../error-mapper.ts';
import type { MediaApi } from '../media-api.ts';
import type { Provider, ProviderCall, ProviderCompletion, ResolvedProviderSettings } from '../provider.ts';
import { abortedByCaller, incompleteStream, invalidResponse } from '../provider-errors.ts';
import { toConverseRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import type { BedrockSettings } from './definition.ts';
import { fetchRequestHandler } from './fetch-handler.ts';
import { mapBedrockError } from './map-bedrock-error.ts';
import { bedrockMedia } from './media.ts';
import { StreamConverter } from './stream-converter.ts';

/**
 * AWS Bedrock through `@aws-sdk/client-bedrock-runtime` (Converse and ConverseStream). Credentials: explicit ones,
 * a Bedrock API key (bearer), else the SDK's standard chain. The SDK's own retries are off: retries are the gateway's.
 */
export async function createBedrockProvider(settings: ResolvedProviderSettings<BedrockSettings>): Promise<Provider> {
  const sdk = await importOptional(
    '@aws-sdk/client-bedrock-runtime',
    'Bedrock',
    () => import('@aws-sdk/client-bedrock-runtime'),
  );
  const bearer = settings.apiKey !== 'unused' ? settings.apiKey : undefined;
  const client = new sdk.BedrockRuntimeClient({
    region: settings.region ?? 'us-east-1',
    endpoint: settings.baseURL,
    maxAttempts: 1,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(bearer ? { token: { token: bearer }, authSchemePreference: ['httpBearerAuth'] } : {}),
    requestHandler: fetchRequestHandler(settings.fetch ?? fetch, settings.timeoutMs),
  });
  return new BedrockProvider(client, sdk, settings);
}

type Sdk = typeof import('@aws-sdk/client-bedrock-runtime');

class BedrockProvider implements Provider {
  readonly name = 'bedrock';
  readonly #client: BedrockRuntimeClient;
  readonly #sdk: Sdk;
  readonly #errors: ErrorMapper;
  /** Nova Canvas and Titan Image Generator through InvokeModel, on the same client. */
  readonly media: MediaApi;
  #counter = 0;

  constructor(client: BedrockRuntimeClient, sdk: Sdk, settings: ResolvedProviderSettings) {
    this.#client = client;
    this.#sdk = sdk;
    this.#errors = errorMapper(this.name, settings, mapBedrockError);
    this.media = bedrockMedia(client, sdk, this.#errors);
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const input = toConverseRequest(call);
    const model = input.modelId!;
    let answer: ConverseResponse;
    try {
      answer = await this.#client.send(new this.#sdk.ConverseCommand(input), signalOption(call.signal));
    } catch (error) {
      throw this.#errors.map(error, model, { signal: call.signal });
    }
    if (!Array.isArray(answer?.output?.message?.content))
      throw invalidResponse(this.#errors.scope(model), 'output.message.content is not a list of blocks');
    return toCompletion(answer, model, this.#nextId());
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const input = toConverseRequest(call);
    const model = input.modelId!;
    try {
      const response = await this.#client.send(new this.#sdk.ConverseStreamCommand(input), signalOption(call.signal));
      if (!response.stream) throw invalidResponse(this.#errors.scope(model), 'the answer has no event stream');
      return this.#convert(response.stream, model, call.signal);
    } catch (error) {
      throw this.#errors.map(error, model, { signal: call.signal });
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
      throw this.#errors.map(error, model, { signal, phase: 'stream' });
    }
    if (signal?.aborted) throw abortedByCaller(this.#errors.scope(model));
    if (!converter.finished) throw incompleteStream(this.#errors.scope(model), 'messageStop');
  }

  #nextId(): string {
    this.#counter += 1;
    return `chatcmpl-bedrock-${Date.now().toString(36)}-${this.#counter}`;
  }
}

function signalOption(signal: AbortSignal | undefined): { abortSignal: AbortSignal } | Record<string, never> {
  return signal ? { abortSignal: signal } : {};
}
