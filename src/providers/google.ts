import type { GenerateContentParameters, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { AuthenticationError, ProviderError, RateLimitError, isRetryableStatus } from '../errors.ts';
import { parseRetryAfter } from '../internal/parse-retry-after.ts';
import { redactSecrets, redactedCause } from '../internal/redact.ts';
import type { CompletionChunk } from '../types.ts';
import { StreamConverter, toCompletion, toGeminiRequest, type GeminiRequest } from './google-convert.ts';
import type { Provider, ProviderCall, ProviderCompletion, ResolvedProviderSettings } from './provider.ts';

/**
 * The Google Gemini adapter, on the official `@google/genai` SDK (Gemini API, not Vertex): OpenAI chat completions in,
 * `generateContent` / `streamGenerateContent` on the wire, OpenAI chat completions out. The conversions live in
 * `google-convert.ts`; this file owns the client, streaming and error mapping.
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
  return new GoogleProvider(client, settings);
}

/** `https://host/v1beta` → base URL `https://host` and API version `v1beta` (the SDK appends the version itself). */
function splitBaseURL(url: string): { baseUrl: string; apiVersion: string | undefined } {
  const trimmed = url.replace(/\/+$/, '');
  const version = /\/(v\d+(?:alpha|beta)?)$/.exec(trimmed);
  return version ? { baseUrl: trimmed.slice(0, version.index), apiVersion: version[1] } : { baseUrl: trimmed, apiVersion: undefined };
}

type Phase = 'request' | 'stream';

class GoogleProvider implements Provider {
  readonly name = 'google';
  readonly #client: GoogleGenAI;
  readonly #settings: ResolvedProviderSettings;

  constructor(client: GoogleGenAI, settings: ResolvedProviderSettings) {
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
    return toCompletion(response, request.model, droppedPartReporter(call));
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
        yield* converter.convert(next.value);
      }
      if (call.signal?.aborted) throw this.#toProviderError(new Error('aborted'), model, call, 'stream');
      if (converter.truncated) {
        throw new ProviderError(`The stream from ${this.name} (${model}) ended before Gemini sent a finishReason.`, {
          provider: this.name, model, status: 502, code: 'stream_truncated', type: 'api_error', retryable: true,
        });
      }
      yield* converter.finish();
    } finally {
      close();
    }
  }

  #toProviderError(error: unknown, model: string, call: ProviderCall, phase: Phase): ProviderError {
    if (error instanceof ProviderError) return error;
    const name = this.name;
    const secrets = [this.#settings.apiKey];
    const redact = (text: string) => redactSecrets(text, secrets);
    const failure = error as { name?: string; message?: string; status?: unknown; cause?: { code?: string; message?: string } };

    if (call.signal?.aborted) {
      return new ProviderError(`The request to ${name} (${model}) was aborted by the caller.`, {
        provider: name, model, status: 499, code: 'aborted', retryable: false, cause: redactedCause(error, [this.#settings.apiKey]),
      });
    }
    if (failure?.name === 'AbortError' || failure?.name === 'TimeoutError') {
      return new ProviderError(`${name} (${model}) did not answer within ${this.#settings.timeoutMs} ms.`, {
        provider: name, model, status: 408, code: 'timeout', type: 'timeout_error', retryable: true, cause: redactedCause(error, [this.#settings.apiKey]),
      });
    }
    if (failure?.name === 'ApiError' && typeof failure.status === 'number') {
      return toApiError(failure.status, failure.message ?? '', { name, model, redact });
    }
    const detail = redact(failure?.cause?.code ?? failure?.cause?.message ?? failure?.message ?? String(error));
    if (error instanceof TypeError || failure?.cause?.code) {
      return new ProviderError(
        phase === 'stream'
          ? `The connection to ${name} (${model}) broke during the stream: ${detail}`
          : `Could not reach ${name} (${model}) at ${this.#settings.baseURL}: ${detail}`,
        { provider: name, model, status: 502, code: 'connection_error', type: 'api_error', retryable: true, cause: redactedCause(error, [this.#settings.apiKey]) },
      );
    }
    return new ProviderError(`${name} (${model}) sent a response that could not be read: ${detail}`, {
      provider: name, model, status: 502, code: phase === 'stream' ? 'stream_error' : 'invalid_response', type: 'api_error', retryable: true, cause: redactedCause(error, [this.#settings.apiKey]),
    });
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
function toApiError(status: number, sdkMessage: string, context: { name: string; model: string; redact: (text: string) => string }): ProviderError {
  const { name, model, redact } = context;
  const body = parseErrorBody(sdkMessage);
  const detailOf = (type: string) => body?.details?.find((detail) => String(detail['@type'] ?? '').endsWith(type));
  const reason = stringOr(detailOf('google.rpc.ErrorInfo')?.reason);
  const retryDelay = stringOr(detailOf('google.rpc.RetryInfo')?.retryDelay);
  const googleStatus = stringOr(body?.status);
  // An invalid key is a 400 INVALID_ARGUMENT on Gemini; callers know it as the 401 every other provider sends.
  const invalidKey = reason === 'API_KEY_INVALID';
  const label = [googleStatus, reason && reason !== googleStatus ? `(${reason})` : undefined].filter(Boolean).join(' ');
  const message = `${name} (${model}) answered ${status}${label ? ` ${label}` : ''}: ${redact(body?.message ?? sdkMessage)}`;
  // The SDK's error message is the raw body; the cause keeps it, redacted like everything else.
  const cause = Object.assign(new Error(redact(sdkMessage)), { name: 'ApiError', status });
  const options = {
    provider: name,
    model,
    status: invalidKey ? 401 : status,
    code: reason ?? googleStatus ?? null,
    retryable: !invalidKey && isRetryableStatus(status),
    retryAfterMs: parseRetryAfter(undefined, retryDelay),
    cause,
  };
  if (invalidKey || status === 401 || status === 403) return new AuthenticationError(message, options);
  if (status === 429) return new RateLimitError(message, options);
  return new ProviderError(message, options);
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
  return { model: request.model, contents: request.contents, config: { ...request.config, ...(signal ? { abortSignal: signal } : {}) } };
}

function droppedPartReporter(call: ProviderCall): (what: string) => void {
  return (what) => call.warn({
    code: 'unsupported_response_part',
    message: `Gemini answered with a "${what}" part, which has no chat-completion equivalent; it was left out.`,
  });
}
