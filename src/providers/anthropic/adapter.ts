import type Anthropic from '@anthropic-ai/sdk';
import { importOptional } from '../../internal/optional-package.ts';
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
import { type AnthropicTransport, SKIP, sdkTransport, wireTransport } from './anthropic-transport.ts';
import { type Params, toAnthropicRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import { anthropicErrors } from './map-anthropic-error.ts';
import { apiVersionFor } from './sampling.ts';
import { StreamConverter } from './stream-converter.ts';

type AnthropicSDK = typeof import('@anthropic-ai/sdk');

/**
 * The Anthropic adapter: OpenAI requests are translated to the Messages API and the answers back (the conversions
 * are the other files of this folder). It speaks the HTTP API itself (`wire`, API version 2026-10-21, or the model's
 * own where the request sends sampling parameters); `transport: 'sdk'` sends through `@anthropic-ai/sdk` instead.
 */
export async function createAnthropicProvider(settings: ResolvedProviderSettings): Promise<Provider> {
  if (settings.transport === 'wire')
    return new AnthropicProvider(wireTransport(settings), undefined, settings, 'anthropic');
  const sdk = await loadAnthropicSDK("Anthropic's SDK transport");
  const client = new sdk.default({ ...sdkClientOptions(settings), baseURL: settings.baseURL });
  return new AnthropicProvider(sdkTransport(client), sdk, settings, 'anthropic');
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
  return new AnthropicProvider(sdkTransport(client), await loadAnthropicSDK(`Claude on ${name}`), settings, name);
}

/** `@anthropic-ai/sdk` is an optional dependency: only its transport (and the clouds' Claude clients) load it. */
function loadAnthropicSDK(neededFor: string): Promise<AnthropicSDK> {
  return importOptional('@anthropic-ai/sdk', neededFor, () => import('@anthropic-ai/sdk'));
}

class AnthropicProvider implements Provider {
  readonly name: string;
  readonly #transport: AnthropicTransport;
  readonly #errors: ErrorMapper;

  /** `sdk`: the SDK module whose error classes the transport's failures are, when it is the SDK's. */
  constructor(
    transport: AnthropicTransport,
    sdk: AnthropicSDK | undefined,
    settings: ResolvedProviderSettings,
    name: string,
  ) {
    this.name = name;
    this.#transport = transport;
    this.#errors = errorMapper(name, settings, anthropicErrors(sdk));
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const params = toAnthropicRequest(call, false, this.name);
    try {
      const message = (await this.#transport.send(
        { ...params, stream: false },
        this.#options(call, params),
      )) as Anthropic.Message;
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
      const events = (await this.#transport.send(
        { ...params, stream: true },
        this.#options(call, params),
      )) as AsyncIterable<unknown>;
      return this.#convertEvents(events, params.model, call.signal);
    } catch (error) {
      throw this.#errors.map(error, params.model, { signal: call.signal });
    }
  }

  /** The caller's signal, and the model's own API version where the request sends sampling parameters. */
  #options(call: ProviderCall, params: Params): Parameters<AnthropicTransport['send']>[1] {
    const version = apiVersionFor(call, params, this.name);
    return { signal: call.signal, ...(version ? { headers: { 'anthropic-version': version } } : {}) };
  }

  async *#convertEvents(
    events: AsyncIterable<unknown>,
    model: string,
    signal: AbortSignal | undefined,
  ): AsyncIterable<CompletionChunk> {
    const converter = new StreamConverter(model);
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (;;) {
        let event: unknown;
        try {
          const next = await iterator.next();
          if (next.done) break;
          // The transport's item read here, in this loop: no generator of its own per event.
          event = this.#transport.eventOf(next.value);
        } catch (error) {
          throw this.#errors.map(error, model, { signal, phase: 'stream' });
        }
        if (event === SKIP) continue;
        // Events already buffered would keep coming after an abort; stop at once instead.
        if (signal?.aborted) break;
        const problem = checkShape(checkStreamEvent, event);
        if (problem) throw invalidResponse(this.#errors.scope(model), `stream event: ${problem}`);
        // A loop, not `yield*`: that would wrap the array in an async iterator, awaiting each chunk.
        for (const chunk of converter.handle(event as Anthropic.RawMessageStreamEvent)) yield chunk;
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
