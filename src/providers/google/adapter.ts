import type { EmbedContentResponse, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { importOptional } from '../../internal/optional-package.ts';
import { checkShape } from '../../internal/shape.ts';
import type { CompletionChunk } from '../../types.ts';
import type { EmbeddingCall, ProviderEmbedding } from '../embedding-api.ts';
import { type ErrorMapper, errorMapper } from '../error-mapper.ts';
import type { MediaApi } from '../media-api.ts';
import type { Provider, ProviderCall, ProviderCompletion, ResolvedProviderSettings } from '../provider.ts';
import { incompleteStream, invalidResponse } from '../provider-errors.ts';
import { checkEmbeddings, checkResponse } from './answer-shape.ts';
import { toGeminiRequest } from './convert-request.ts';
import { toCompletion } from './convert-response.ts';
import { type GoogleTransport, sdkTransport, wireTransport } from './google-transport.ts';
import { mapGoogleError } from './map-google-error.ts';
import { geminiApiEndpoint, googleMedia } from './media.ts';
import { checkedModelName } from './model-name.ts';
import { StreamConverter } from './stream-converter.ts';

/** The most texts one batchEmbedContents request takes (Google's limit). */
const EMBED_BATCH = 100;

/**
 * The Google Gemini adapter (Gemini API, not Vertex): OpenAI chat completions in, `generateContent` /
 * `streamGenerateContent` on the wire, OpenAI chat completions out. It speaks the REST API itself (`wire`), or goes
 * through the official `@google/genai` SDK (`transport: 'sdk'`). The conversions live in the other files of this
 * folder; this one owns streaming and error mapping.
 */
export async function createGoogleProvider(settings: ResolvedProviderSettings): Promise<Provider> {
  const { baseUrl, apiVersion } = splitBaseURL(settings.baseURL);
  // v1beta carries the features the conversions use (thinking config, JSON-Schema output); @google/genai 3
  // defaults to v1 when the base URL names no version.
  const version = apiVersion ?? 'v1beta';
  const media = (errors: ErrorMapper) =>
    googleMedia(settings, geminiApiEndpoint(settings, `${baseUrl}/${version}`), errors);
  if (settings.transport === 'wire')
    return new GoogleProvider(wireTransport(settings, baseUrl, version), settings, 'google', media);
  const { GoogleGenAI: Client } = await importOptional(
    '@google/genai',
    "Gemini's SDK transport",
    () => import('@google/genai'),
  );
  const client = new Client({
    // Explicit, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch the backend under us.
    vertexai: false,
    // Sent as the x-goog-api-key header, never as ?key= in the URL.
    apiKey: settings.apiKey,
    apiVersion: version,
    httpOptions: {
      baseUrl,
      timeout: settings.timeoutMs,
      // Retries are the gateway's: one policy for every provider, with fallback between them.
      retryOptions: { attempts: 1 },
      ...(settings.headers ? { headers: settings.headers } : {}),
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    },
  });
  return new GoogleProvider(sdkTransport(client), settings, 'google', media);
}

/** The Gemini adapter on a client made elsewhere (Vertex AI's), answering as the provider `name`. */
export function geminiOn(client: GoogleGenAI, settings: ResolvedProviderSettings, name: string): Provider {
  return new GoogleProvider(sdkTransport(client), settings, name);
}

/** `https://host/v1beta` → base URL `https://host` and API version `v1beta` (the SDK appends the version itself). */
function splitBaseURL(url: string): { baseUrl: string; apiVersion: string | undefined } {
  const trimmed = url.replace(/\/+$/, '');
  const version = /\/(v\d+(?:alpha|beta)?)$/.exec(trimmed);
  return version
    ? { baseUrl: trimmed.slice(0, version.index), apiVersion: version[1] }
    : { baseUrl: trimmed, apiVersion: undefined };
}

class GoogleProvider implements Provider {
  readonly name: string;
  readonly #transport: GoogleTransport;
  readonly #errors: ErrorMapper;
  readonly media: MediaApi | undefined;

  constructor(
    transport: GoogleTransport,
    settings: ResolvedProviderSettings,
    name: string,
    media?: (errors: ErrorMapper) => MediaApi,
  ) {
    this.name = name;
    this.#transport = transport;
    this.#errors = errorMapper(name, settings, mapGoogleError);
    this.media = media?.(this.#errors);
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const request = toGeminiRequest(call);
    checkedModelName(request.model, this.name);
    let response: GenerateContentResponse;
    try {
      response = (await this.#transport.generate(request, call.signal)) as GenerateContentResponse;
    } catch (error) {
      throw this.#errors.map(error, request.model, { signal: call.signal });
    }
    const problem = checkShape(checkResponse, response);
    if (problem) throw invalidResponse(this.#errors.scope(request.model), problem);
    const completion = toCompletion(response, request.model, droppedPartReporter(call));
    if (completion.choices.length === 0)
      throw invalidResponse(this.#errors.scope(request.model), 'no candidates, and no reason the prompt was blocked');
    return completion;
  }

  /**
   * Gemini's batchEmbedContents: one vector per text, at most 100 texts a request (Google's limit), so a longer
   * input goes in batches, one after another. It reports no token count.
   */
  async embed(call: EmbeddingCall): Promise<ProviderEmbedding> {
    checkedModelName(call.model, this.name);
    if (call.user !== undefined)
      call.warn({
        code: 'unsupported_parameter',
        param: 'user',
        message: "Gemini's embeddings API takes no user: it was not sent (the record's metadata keeps it).",
      });
    const vectors: number[][] = [];
    for (let from = 0; from < call.input.length; from += EMBED_BATCH) {
      vectors.push(...(await this.#embedBatch({ ...call, input: call.input.slice(from, from + EMBED_BATCH) })));
    }
    // Shortened, Gemini's vectors are not of unit length (Google says to normalise them); OpenAI's shortened ones are,
    // and an OpenAI-shaped caller's similarity math counts on it.
    return { vectors: call.dimensions === undefined ? vectors : vectors.map(unitLength), promptTokens: undefined };
  }

  async #embedBatch(call: EmbeddingCall): Promise<number[][]> {
    let response: EmbedContentResponse;
    try {
      response = (await this.#transport.embed(call, call.signal)) as EmbedContentResponse;
    } catch (error) {
      throw this.#errors.map(error, call.model, { signal: call.signal });
    }
    const problem = checkShape(checkEmbeddings, response);
    if (problem) throw invalidResponse(this.#errors.scope(call.model), problem);
    const vectors = response.embeddings!.map((embedding) => embedding.values!);
    if (vectors.length !== call.input.length)
      throw invalidResponse(
        this.#errors.scope(call.model),
        `${vectors.length} embeddings for ${call.input.length} inputs`,
      );
    return vectors;
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const request = toGeminiRequest(call);
    checkedModelName(request.model, this.name);
    // Our own signal, so a caller who stops iterating early also closes the connection.
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    if (call.signal?.aborted) controller.abort();
    try {
      const chunks = (await this.#transport.generateStream(request, controller.signal)) as AsyncIterable<unknown>;
      return this.#convertStream(chunks, request.model, call, () => {
        call.signal?.removeEventListener('abort', onAbort);
        controller.abort();
      });
    } catch (error) {
      call.signal?.removeEventListener('abort', onAbort);
      throw this.#errors.map(error, request.model, { signal: call.signal });
    }
  }

  /**
   * Nothing is yielded before Gemini's first chunk arrived, so a stream that fails before its first byte is still
   * retried by the gateway; afterwards every part becomes an OpenAI chunk, and the usage chunk comes last.
   */
  async *#convertStream(
    chunks: AsyncIterable<unknown>,
    model: string,
    call: ProviderCall,
    close: () => void,
  ): AsyncGenerator<CompletionChunk> {
    const converter = new StreamConverter(model, droppedPartReporter(call));
    const iterator = chunks[Symbol.asyncIterator]();
    try {
      while (true) {
        let value: unknown;
        try {
          const next = await iterator.next();
          if (next.done) break;
          // The transport's item read here, in this loop: no generator of its own per chunk.
          value = this.#transport.chunkOf(next.value);
        } catch (error) {
          throw this.#errors.map(error, model, { signal: call.signal, phase: 'stream' });
        }
        const problem = checkShape(checkResponse, value);
        if (problem) throw invalidResponse(this.#errors.scope(model), `stream chunk: ${problem}`);
        // Loops, not `yield*`: that would wrap each array in an async iterator, awaiting each chunk.
        for (const chunk of converter.convert(value as GenerateContentResponse)) yield chunk;
      }
      if (call.signal?.aborted)
        throw this.#errors.map(new Error('aborted'), model, { signal: call.signal, phase: 'stream' });
      if (converter.truncated) throw incompleteStream(this.#errors.scope(model), 'Gemini sent a finishReason');
      for (const chunk of converter.finish()) yield chunk;
    } finally {
      close();
    }
  }
}

function droppedPartReporter(call: ProviderCall): (what: string) => void {
  return (what) =>
    call.warn({
      code: 'unsupported_response_part',
      message: `Gemini answered with a "${what}" part, which has no chat-completion equivalent; it was left out.`,
    });
}

/** `vector` scaled to length 1 (a zero vector as it is). */
function unitLength(vector: number[]): number[] {
  const length = Math.hypot(...vector);
  return length === 0 ? vector : vector.map((value) => value / length);
}
