import type {
  EmbedContentResponse,
  GenerateContentParameters,
  GenerateContentResponse,
  GoogleGenAI,
} from '@google/genai';
import { isRetryableStatus, ProviderError } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { redactSecrets } from '../../internal/redact.ts';
import { checkShape } from '../../internal/shape.ts';
import type { CompletionChunk } from '../../types.ts';
import {
  type EmbeddingCall,
  type Provider,
  type ProviderCall,
  type ProviderCompletion,
  type ProviderEmbedding,
  type ResolvedProviderSettings,
  secretsOf,
} from '../provider.ts';
import {
  abortedByCaller,
  answerTooLarge,
  type ErrorScope,
  fromStatus,
  incompleteStream,
  invalidResponse,
  timedOut,
  unreachable,
} from '../provider-errors.ts';
import { checkEmbeddings, checkResponse } from './answer-shape.ts';
import { type GeminiRequest, toGeminiRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import { StreamConverter } from './stream-converter.ts';

/**
 * The Google Gemini adapter, on the official `@google/genai` SDK (Gemini API, not Vertex): OpenAI chat completions in,
 * `generateContent` / `streamGenerateContent` on the wire, OpenAI chat completions out. The conversions live in
 * the other files of this folder; this one owns the client, streaming and error mapping.
 */
export async function createGoogleProvider(settings: ResolvedProviderSettings): Promise<Provider> {
  const { GoogleGenAI: Client } = await import('@google/genai');
  const { baseUrl, apiVersion } = splitBaseURL(settings.baseURL);
  const client = new Client({
    // Explicit, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch the backend under us.
    vertexai: false,
    // Sent as the x-goog-api-key header, never as ?key= in the URL.
    apiKey: settings.apiKey,
    // v1beta carries the features the conversions use (thinking config, JSON-Schema output); @google/genai 3
    // defaults to v1 when the base URL names no version.
    apiVersion: apiVersion ?? 'v1beta',
    httpOptions: {
      baseUrl,
      timeout: settings.timeoutMs,
      // Retries are the gateway's: one policy for every provider, with fallback between them.
      retryOptions: { attempts: 1 },
      ...(settings.headers ? { headers: settings.headers } : {}),
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    },
  });
  return new GoogleProvider(client, settings, 'google');
}

/** The Gemini adapter on a client made elsewhere (Vertex AI's), answering as the provider `name`. */
export function geminiOn(client: GoogleGenAI, settings: ResolvedProviderSettings, name: string): Provider {
  return new GoogleProvider(client, settings, name);
}

/** `https://host/v1beta` → base URL `https://host` and API version `v1beta` (the SDK appends the version itself). */
function splitBaseURL(url: string): { baseUrl: string; apiVersion: string | undefined } {
  const trimmed = url.replace(/\/+$/, '');
  const version = /\/(v\d+(?:alpha|beta)?)$/.exec(trimmed);
  return version
    ? { baseUrl: trimmed.slice(0, version.index), apiVersion: version[1] }
    : { baseUrl: trimmed, apiVersion: undefined };
}

type Phase = 'request' | 'stream';

class GoogleProvider implements Provider {
  readonly name: string;
  readonly #client: GoogleGenAI;
  readonly #settings: ResolvedProviderSettings;

  constructor(client: GoogleGenAI, settings: ResolvedProviderSettings, name: string) {
    this.name = name;
    this.#client = client;
    this.#settings = settings;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const request = toGeminiRequest(call);
    let response: GenerateContentResponse;
    try {
      response = await this.#client.models.generateContent(toParameters(request, call.signal));
    } catch (error) {
      throw this.#toProviderError(error, request.model, call, 'request');
    }
    const problem = checkShape(checkResponse, response);
    if (problem) throw invalidResponse(this.#scope(request.model), problem);
    const completion = toCompletion(response, request.model, droppedPartReporter(call));
    if (completion.choices.length === 0)
      throw invalidResponse(this.#scope(request.model), 'no candidates, and no reason the prompt was blocked');
    return completion;
  }

  /** Gemini's batchEmbedContents: one vector per text. It reports no token count. */
  async embed(call: EmbeddingCall): Promise<ProviderEmbedding> {
    let response: EmbedContentResponse;
    try {
      response = await this.#client.models.embedContent({
        model: call.model,
        contents: call.input,
        config: {
          ...(call.dimensions !== undefined ? { outputDimensionality: call.dimensions } : {}),
          ...(call.signal ? { abortSignal: call.signal } : {}),
        },
      });
    } catch (error) {
      throw this.#toProviderError(error, call.model, call, 'request');
    }
    const problem = checkShape(checkEmbeddings, response);
    if (problem) throw invalidResponse(this.#scope(call.model), problem);
    const vectors = response.embeddings!.map((embedding) => embedding.values!);
    if (vectors.length !== call.input.length)
      throw invalidResponse(this.#scope(call.model), `${vectors.length} embeddings for ${call.input.length} inputs`);
    return { vectors, promptTokens: undefined };
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const request = toGeminiRequest(call);
    // Our own signal, so a caller who stops iterating early also closes the connection.
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    if (call.signal?.aborted) controller.abort();
    try {
      const chunks = await this.#client.models.generateContentStream(toParameters(request, controller.signal));
      return this.#convertStream(chunks, request.model, call, () => {
        call.signal?.removeEventListener('abort', onAbort);
        controller.abort();
      });
    } catch (error) {
      call.signal?.removeEventListener('abort', onAbort);
      throw this.#toProviderError(error, request.model, call, 'request');
    }
  }

  /**
   * Nothing is yielded before Gemini's first chunk arrived, so a stream that fails before its first byte is still
   * retried by the gateway; afterwards every part becomes an OpenAI chunk, and the usage chunk comes last.
   */
  async *#convertStream(
    chunks: AsyncGenerator<GenerateContentResponse>,
    model: string,
    call: ProviderCall,
    close: () => void,
  ): AsyncGenerator<CompletionChunk> {
    const converter = new StreamConverter(model, droppedPartReporter(call));
    try {
      while (true) {
        let next: IteratorResult<GenerateContentResponse>;
        try {
          next = await chunks.next();
        } catch (error) {
          throw this.#toProviderError(error, model, call, 'stream');
        }
        if (next.done) break;
        const problem = checkShape(checkResponse, next.value);
        if (problem) throw invalidResponse(this.#scope(model), `stream chunk: ${problem}`);
        yield* converter.convert(next.value);
      }
      if (call.signal?.aborted) throw this.#toProviderError(new Error('aborted'), model, call, 'stream');
      if (converter.truncated) throw incompleteStream(this.#scope(model), 'Gemini sent a finishReason');
      yield* converter.finish();
    } finally {
      close();
    }
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
  #toProviderError(
    error: unknown,
    model: string,
    call: { signal?: AbortSignal | undefined },
    phase: Phase,
  ): ProviderError {
    if (error instanceof ProviderError) return error;
    const scope = this.#scope(model);
    const tooLarge = answerTooLarge(scope, error);
    if (tooLarge) return tooLarge;
    const failure = error as {
      name?: string;
      message?: string;
      status?: unknown;
      cause?: { code?: string; message?: string };
    };
    if (call.signal?.aborted) return abortedByCaller(scope, error);
    if (failure?.name === 'AbortError' || failure?.name === 'TimeoutError') return timedOut(scope, error);
    if (failure?.name === 'ApiError' && typeof failure.status === 'number')
      return toApiError(scope, failure.status, failure.message ?? '');
    // fetch's network failures are TypeErrors with the socket error as cause; a TypeError without one is the SDK
    // tripping over an answer it could not read.
    if (failure?.cause !== undefined) return unreachable(scope, error, phase);
    // The SDK could not read the body: not JSON, or not the shape it parses.
    return invalidResponse(scope, `the body could not be read (${failure?.message ?? String(error)})`, error);
  }
}

interface GoogleErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<Record<string, unknown>>;
}

/**
 * An HTTP (or in-stream) error from Gemini. The SDK's ApiError carries only the status and the JSON body as its
 * message: `{"error":{"code","message","status","details":[ErrorInfo, RetryInfo, …]}}` (§3.7).
 */
function toApiError(scope: ErrorScope, status: number, sdkMessage: string): ProviderError {
  const body = parseErrorBody(sdkMessage);
  const detailOf = (type: string) => body?.details?.find((detail) => String(detail['@type'] ?? '').endsWith(type));
  const reason = stringOr(detailOf('google.rpc.ErrorInfo')?.reason);
  const violations = detailOf('google.rpc.BadRequest')?.fieldViolations;
  const field = Array.isArray(violations)
    ? stringOr((violations[0] as { field?: unknown } | undefined)?.field)
    : undefined;
  const retryDelay = stringOr(detailOf('google.rpc.RetryInfo')?.retryDelay);
  const googleStatus = stringOr(body?.status);
  // An invalid key is a 400 INVALID_ARGUMENT on Gemini; callers know it as the 401 every other provider sends.
  const invalidKey = reason === 'API_KEY_INVALID';
  const label = [googleStatus, reason && reason !== googleStatus ? `(${reason})` : undefined].filter(Boolean).join(' ');
  // The SDK's error message is the raw body; the cause keeps it, redacted like everything else.
  const cause = Object.assign(new Error(redactSecrets(sdkMessage, scope.secrets)), { name: 'ApiError', status });
  return fromStatus(scope, invalidKey ? 401 : status, body?.message ?? sdkMessage, {
    ...(label ? { detail: label } : {}),
    answered: status,
    code: reason ?? googleStatus ?? null,
    // Google names the offending field in a BadRequest detail; the JSON-Schema output is our response_format.
    param: field && /^generation_?config\.response_(json_)?schema/i.test(field) ? 'response_format' : (field ?? null),
    retryable: !invalidKey && isRetryableStatus(status),
    retryAfterMs: parseRetryAfter(undefined, retryDelay),
    cause,
  });
}

/** The Google error object inside the SDK's message (which may be prefixed, e.g. "got status: …. {json}"). */
function parseErrorBody(text: string): GoogleErrorBody | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  try {
    let parsed: unknown = JSON.parse(text.slice(start));
    // Google's OpenAI-compatible endpoints wrap the error in an array.
    if (Array.isArray(parsed)) parsed = parsed[0];
    const inner = (parsed as { error?: unknown })?.error;
    return typeof inner === 'object' && inner !== null ? (inner as GoogleErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function toParameters(request: GeminiRequest, signal: AbortSignal | undefined): GenerateContentParameters {
  return {
    model: request.model,
    contents: request.contents,
    config: { ...request.config, ...(signal ? { abortSignal: signal } : {}) },
  };
}

function droppedPartReporter(call: ProviderCall): (what: string) => void {
  return (what) =>
    call.warn({
      code: 'unsupported_response_part',
      message: `Gemini answered with a "${what}" part, which has no chat-completion equivalent; it was left out.`,
    });
}
