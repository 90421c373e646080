import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { isRetryableStatus, ProviderError } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { checkShape, isPlainObject } from '../../internal/shape.ts';
import type { CompletionChunk } from '../../types.ts';
import {
  type EmbeddingCall,
  type Provider,
  type ProviderCall,
  type ProviderCompletion,
  type ProviderEmbedding,
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
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';
import { checkChunk, checkCompletion, checkEmbeddings } from './answer-shape.ts';
import { toOpenAIRequest } from './convert-request.ts';
import type { OpenAIFamilyQuirks } from './family.ts';
import { arrayOrEmpty, normalizeChoice, normalizeUsage } from './normalize-answer.ts';

/** The OpenAI adapter, on the official `openai` SDK; every OpenAI-compatible provider runs through it. */
export async function createOpenAIProvider(
  settings: ResolvedProviderSettings,
  quirks: OpenAIFamilyQuirks,
): Promise<Provider> {
  const { default: OpenAIClient } = await import('openai');
  // The SDK reads OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment: OpenAI's account, no other provider's.
  const account = quirks.name === 'openai' ? {} : { organization: null, project: null };
  const client = new OpenAIClient({ ...sdkClientOptions(settings), baseURL: settings.baseURL, ...account });
  return new OpenAIProvider(client, settings, quirks);
}

/** Exported for the Azure adapter, which hands it the SDK's Azure client. */
export class OpenAIProvider implements Provider {
  readonly name: string;
  readonly #client: OpenAI;
  readonly #settings: ResolvedProviderSettings;
  readonly #quirks: OpenAIFamilyQuirks;

  constructor(client: OpenAI, settings: ResolvedProviderSettings, quirks: OpenAIFamilyQuirks) {
    this.name = quirks.name;
    this.#client = client;
    this.#settings = settings;
    this.#quirks = quirks;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const body = toOpenAIRequest(call, this.#quirks, this.#settings.deployments);
    try {
      const completion = (await this.#client.chat.completions.create(body, {
        signal: call.signal,
      })) as ProviderCompletion;
      if (isPlainObject(completion) && completion.usage === null) delete completion.usage;
      for (const choice of arrayOrEmpty(completion?.choices)) normalizeChoice(choice, 'message', this.#quirks);
      normalizeUsage(completion?.usage);
      const problem = checkShape(checkCompletion, completion);
      if (problem) throw invalidResponse(this.#scope(body.model), problem);
      return completion;
    } catch (error) {
      throw this.#toProviderError(error, body.model);
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const body = toOpenAIRequest(call, this.#quirks, this.#settings.deployments);
    const streamOptions: Record<string, boolean> = {};
    if (this.#quirks.streamUsage) streamOptions.include_usage = true;
    if (this.#quirks.disableObfuscation) streamOptions.include_obfuscation = false;
    try {
      const stream = await this.#client.chat.completions.create(
        { ...body, stream: true, ...(this.#quirks.streamUsage ? { stream_options: streamOptions } : {}) },
        { signal: call.signal },
      );
      return this.#convertChunks(stream, body.model, call.signal);
    } catch (error) {
      throw this.#toProviderError(error, body.model);
    }
  }

  async embed(call: EmbeddingCall): Promise<ProviderEmbedding> {
    const model = this.#settings.deployments?.[call.model] ?? call.model;
    try {
      const answer = await this.#client.embeddings.create(
        {
          model,
          input: call.input,
          encoding_format: 'float',
          ...(call.dimensions !== undefined ? { dimensions: call.dimensions } : {}),
        },
        { signal: call.signal },
      );
      const problem = checkShape(checkEmbeddings, answer);
      if (problem) throw invalidResponse(this.#scope(model), problem);
      const vectors = [...answer.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
      return { vectors, promptTokens: answer.usage?.prompt_tokens };
    } catch (error) {
      throw this.#toProviderError(error, model);
    }
  }

  async *#convertChunks(
    stream: AsyncIterable<ChatCompletionChunk>,
    model: string,
    signal: AbortSignal | undefined,
  ): AsyncIterable<CompletionChunk> {
    let finished = false;
    try {
      for await (const chunk of stream) {
        for (const choice of arrayOrEmpty(chunk?.choices)) normalizeChoice(choice, 'delta', this.#quirks);
        if (chunk?.usage) normalizeUsage(chunk.usage);
        const problem = checkShape(checkChunk, chunk);
        if (problem) throw invalidResponse(this.#scope(model), `stream chunk: ${problem}`);
        // Azure opens streams with a choice-less chunk that only carries prompt_filter_results.
        if (chunk.choices.length === 0 && !chunk.usage) continue;
        if (chunk.choices.some((choice) => choice.finish_reason)) finished = true;
        yield chunk;
      }
    } catch (error) {
      throw this.#toProviderError(error, model);
    }
    // The SDK ends quietly both when the caller aborts and when the body ends without [DONE]; neither is an answer.
    if (signal?.aborted) throw this.#toProviderError(new DOMException('aborted', 'AbortError'), model);
    if (!finished) throw incompleteStream(this.#scope(model), 'a finish_reason');
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

  /** The SDK's failure as one of the shared provider errors. */
  #toProviderError(error: unknown, model: string): ProviderError {
    if (error instanceof ProviderError) return error;
    const scope = this.#scope(model);
    const tooLarge = answerTooLarge(scope, error);
    if (tooLarge) return tooLarge;
    const sdkName = (error as Error)?.constructor?.name ?? '';
    if (sdkName === 'APIUserAbortError' || (error as Error)?.name === 'AbortError')
      return abortedByCaller(scope, error);
    if (sdkName === 'APIConnectionTimeoutError') return timedOut(scope, error);
    if (error instanceof SyntaxError) return invalidResponse(scope, `the body is not JSON (${error.message})`, error);
    // A TypeError the SDK throws while reading an answer of the wrong shape; fetch's network failures have a cause.
    if (error instanceof TypeError && error.cause === undefined) return invalidResponse(scope, error.message, error);
    const apiError = error as {
      status?: number;
      message?: string;
      code?: string | null;
      param?: string | null;
      headers?: Headers;
    };
    if (sdkName === 'APIError' && apiError.status === undefined)
      return streamError(scope, String(apiError.message), { cause: error });
    if (sdkName === 'APIConnectionError' || apiError.status === undefined) return unreachable(scope, error);
    const status = apiError.status;
    const code = apiError.code ?? null;
    // The SDK's message starts with the status ("429 Rate limit…"); ours says it once.
    return fromStatus(scope, status, (apiError.message ?? 'no message').replace(/^\d{3} /, ''), {
      code,
      // OpenAI names the rejected field in `param`; a schema strict mode cannot take also has its own code.
      param: apiError.param ?? (code === 'invalid_json_schema' ? 'response_format' : null),
      // insufficient_quota is a 429 that will not get better by waiting.
      retryable: isRetryableStatus(status) && code !== 'insufficient_quota',
      retryAfterMs: parseRetryAfter(apiError.headers),
      cause: error,
    });
  }
}
