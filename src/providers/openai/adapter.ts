import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { importOptional } from '../../internal/optional-package.ts';
import { processEnv } from '../../internal/runtime.ts';
import { checkShape, isPlainObject } from '../../internal/shape.ts';
import type { CompletionChunk } from '../../types.ts';
import type { EmbeddingCall, ProviderEmbedding } from '../embedding-api.ts';
import { type ErrorMapper, errorMapper } from '../error-mapper.ts';
import type { MediaApi } from '../media-api.ts';
import {
  type Provider,
  type ProviderCall,
  type ProviderCompletion,
  type ResolvedProviderSettings,
  sdkClientOptions,
} from '../provider.ts';
import { incompleteStream, invalidResponse } from '../provider-errors.ts';
import { checkChunk, checkCompletion, checkEmbeddings } from './answer-shape.ts';
import { toOpenAIRequest } from './convert-request.ts';
import type { OpenAIFamilyQuirks } from './family.ts';
import { mapOpenAIError } from './map-openai-error.ts';
import { openAIMedia } from './media.ts';
import { arrayOrEmpty, normalizeChoice, normalizeUsage } from './normalize-answer.ts';
import { type OpenAITransport, STREAM_DONE, sdkTransport, wireTransport } from './openai-transport.ts';

/**
 * The OpenAI adapter; every OpenAI-compatible provider runs through it. By default it speaks the HTTP API itself
 * (`wire`); `transport: 'sdk'` sends through the official `openai` SDK instead.
 */
export async function createOpenAIProvider(
  settings: ResolvedProviderSettings,
  quirks: OpenAIFamilyQuirks,
): Promise<Provider> {
  if (settings.transport === 'wire')
    return new OpenAIProvider(wireTransport(settings, accountHeaders(quirks)), settings, quirks);
  const { default: OpenAIClient } = await importOptional('openai', "OpenAI's SDK transport", () => import('openai'));
  // The SDK reads OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment: OpenAI's account, no other provider's.
  const account = quirks.name === 'openai' ? {} : { organization: null, project: null };
  const client = new OpenAIClient({ ...sdkClientOptions(settings), baseURL: settings.baseURL, ...account });
  return new OpenAIProvider(sdkTransport(client), settings, quirks);
}

/** The organization and project headers the SDK sends for OpenAI from OPENAI_ORG_ID and OPENAI_PROJECT_ID. */
function accountHeaders(quirks: OpenAIFamilyQuirks): Record<string, string> {
  if (quirks.name !== 'openai') return {};
  const { OPENAI_ORG_ID: organization, OPENAI_PROJECT_ID: project } = processEnv();
  return {
    ...(organization ? { 'openai-organization': organization } : {}),
    ...(project ? { 'openai-project': project } : {}),
  };
}

/** Exported for the Azure adapter, which hands it the SDK's Azure client as its transport. */
export class OpenAIProvider implements Provider {
  readonly name: string;
  readonly #transport: OpenAITransport;
  readonly #quirks: OpenAIFamilyQuirks;
  readonly #deployments: Record<string, string> | undefined;
  readonly #errors: ErrorMapper;
  readonly media: MediaApi | undefined;

  /** `deployments`: the name each model is sent as (Azure's deployment names), where it is not its own. */
  constructor(
    transport: OpenAITransport,
    settings: ResolvedProviderSettings,
    quirks: OpenAIFamilyQuirks,
    deployments?: Record<string, string>,
  ) {
    this.name = quirks.name;
    this.#transport = transport;
    this.#quirks = quirks;
    this.#deployments = deployments;
    this.#errors = errorMapper(quirks.name, settings, mapOpenAIError);
    this.media = quirks.media ? openAIMedia(settings, quirks, this.#errors) : undefined;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const body = toOpenAIRequest(call, this.#quirks, this.#deployments);
    try {
      const completion = (await this.#transport.complete(body, call.signal)) as ProviderCompletion;
      if (isPlainObject(completion) && completion.usage === null) delete completion.usage;
      for (const choice of arrayOrEmpty(completion?.choices)) normalizeChoice(choice, 'message', this.#quirks);
      normalizeUsage(completion?.usage);
      const problem = checkShape(checkCompletion, completion);
      if (problem) throw invalidResponse(this.#errors.scope(body.model), problem);
      return completion;
    } catch (error) {
      throw this.#errors.map(error, body.model, { signal: call.signal });
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const body = toOpenAIRequest(call, this.#quirks, this.#deployments);
    const streamOptions: Record<string, boolean> = {};
    if (this.#quirks.streamUsage) streamOptions.include_usage = true;
    if (this.#quirks.disableObfuscation) streamOptions.include_obfuscation = false;
    try {
      const stream = await this.#transport.stream(
        { ...body, ...(this.#quirks.streamUsage ? { stream_options: streamOptions } : {}) },
        call.signal,
      );
      return this.#convertChunks(stream, body.model, call.signal);
    } catch (error) {
      throw this.#errors.map(error, body.model, { signal: call.signal });
    }
  }

  async embed(call: EmbeddingCall): Promise<ProviderEmbedding> {
    const model = this.#deployments?.[call.model] ?? call.model;
    try {
      const answer = (await this.#transport.embed(
        {
          model,
          input: call.input,
          encoding_format: 'float',
          ...(call.dimensions !== undefined ? { dimensions: call.dimensions } : {}),
          ...(call.user !== undefined ? { user: call.user } : {}),
        },
        call.signal,
      )) as CreateEmbeddingResponse;
      const problem = checkShape(checkEmbeddings, answer);
      if (problem) throw invalidResponse(this.#errors.scope(model), problem);
      const vectors = [...answer.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
      return { vectors, promptTokens: answer.usage?.prompt_tokens };
    } catch (error) {
      throw this.#errors.map(error, model, { signal: call.signal });
    }
  }

  async *#convertChunks(
    stream: AsyncIterable<unknown>,
    model: string,
    signal: AbortSignal | undefined,
  ): AsyncIterable<CompletionChunk> {
    let finished = false;
    try {
      for await (const item of stream) {
        // The transport's item read here, in this loop: no generator of its own per chunk.
        const value = this.#transport.chunkOf(item);
        if (value === STREAM_DONE) break;
        const chunk = value as ChatCompletionChunk;
        for (const choice of arrayOrEmpty(chunk?.choices)) normalizeChoice(choice, 'delta', this.#quirks);
        if (chunk?.usage) normalizeUsage(chunk.usage);
        const problem = checkShape(checkChunk, chunk);
        if (problem) throw invalidResponse(this.#errors.scope(model), `stream chunk: ${problem}`);
        // Azure opens streams with a choice-less chunk that only carries prompt_filter_results.
        if (chunk.choices.length === 0 && !chunk.usage) continue;
        if (chunk.choices.some((choice) => choice.finish_reason)) finished = true;
        yield chunk;
      }
    } catch (error) {
      throw this.#errors.map(error, model, { signal, phase: 'stream' });
    }
    // The SDK ends quietly both when the caller aborts and when the body ends without [DONE]; neither is an answer.
    if (signal?.aborted) throw this.#errors.map(new DOMException('aborted', 'AbortError'), model, { signal });
    if (!finished) throw incompleteStream(this.#errors.scope(model), 'a finish_reason');
  }
}
