import type { GoogleGenAI } from '@google/genai';
import { statusText } from '../../internal/status-text.ts';
import type { ResolvedProviderSettings } from '../provider.ts';
import { type Endpoint, endpointOf } from '../wire/http-sender.ts';
import type { ServerEvent } from '../wire/server-events.ts';
import { wireHeaders } from '../wire/wire-headers.ts';
import { type HttpStatusError, postForEvents, postJson, StreamFailure } from '../wire/wire-post.ts';
import type { GeminiRequest } from './convert-request.ts';

/**
 * How the Gemini adapter reaches `generateContent`, `streamGenerateContent` and `batchEmbedContents`: straight over
 * HTTP (`wire`) or through a `@google/genai` client (`sdk`, and Vertex's). Answers come back as the API's JSON.
 */
export interface GoogleTransport {
  generate(request: GeminiRequest, signal: AbortSignal | undefined): Promise<unknown>;
  /** Resolves once the response headers arrived; yields an item per chunk, read by `chunkOf`. */
  generateStream(request: GeminiRequest, signal: AbortSignal | undefined): Promise<AsyncIterable<unknown>>;
  /**
   * One item of `generateStream` as the chunk's JSON. The SDK's items are chunks already; the wire's are server-sent
   * events, read in the adapter's own loop rather than in a generator between.
   */
  chunkOf(item: unknown): unknown;
  embed(
    call: { model: string; input: string[]; dimensions?: number | undefined },
    signal: AbortSignal | undefined,
  ): Promise<unknown>;
}

export function sdkTransport(client: GoogleGenAI): GoogleTransport {
  const parameters = (request: GeminiRequest, signal: AbortSignal | undefined) => ({
    model: request.model,
    contents: request.contents,
    config: { ...request.config, ...(signal ? { abortSignal: signal } : {}) },
  });
  return {
    generate: (request, signal) => client.models.generateContent(parameters(request, signal)),
    generateStream: (request, signal) => client.models.generateContentStream(parameters(request, signal)),
    embed: (call, signal) =>
      client.models.embedContent({
        model: call.model,
        contents: call.input,
        config: {
          ...(call.dimensions !== undefined ? { outputDimensionality: call.dimensions } : {}),
          ...(signal ? { abortSignal: signal } : {}),
        },
      }),
    chunkOf: (item) => item,
  };
}

/**
 * The Gemini API's REST endpoints under `<baseURL>/<version>` (v1beta unless the base URL names one), the key in
 * `x-goog-api-key` (never in the URL), bodies in the REST form the SDK would send.
 */
export function wireTransport(settings: ResolvedProviderSettings, baseUrl: string, version: string): GoogleTransport {
  const root = `${baseUrl}/${version}`;
  const own = { 'x-goog-api-key': settings.apiKey };
  const json = wireHeaders(own, settings.headers, 'application/json');
  const events = wireHeaders(own, settings.headers, 'text/event-stream');
  // One endpoint per model and action, parsed once; bounded, since any `google/<id>` may be asked for.
  const endpoints = new Map<string, Endpoint>();
  const endpointFor = (path: string): Endpoint => {
    let endpoint = endpoints.get(path);
    if (!endpoint) {
      if (endpoints.size >= 256) endpoints.clear();
      endpoint = endpointOf(root, path);
      endpoints.set(path, endpoint);
    }
    return endpoint;
  };
  const request = (path: string, headers: Record<string, string>, body: unknown, signal?: AbortSignal) => ({
    endpoint: endpointFor(path),
    headers,
    body: JSON.stringify(body),
    signal,
    timeoutMs: settings.timeoutMs,
  });
  return {
    generate: (gemini, signal) =>
      postJson(settings.send, request(`/${modelPath(gemini.model)}:generateContent`, json, restBody(gemini), signal)),
    async generateStream(gemini, signal) {
      const path = `/${modelPath(gemini.model)}:streamGenerateContent?alt=sse`;
      return postForEvents(settings.send, request(path, events, restBody(gemini), signal));
    },
    embed(call, signal) {
      const model = modelPath(call.model);
      const requests = call.input.map((text) => ({
        content: { role: 'user', parts: [{ text }] },
        model,
        ...(call.dimensions !== undefined ? { outputDimensionality: call.dimensions } : {}),
      }));
      return postJson(settings.send, request(`/${model}:batchEmbedContents`, json, { requests }, signal));
    },
    chunkOf: chunkOfEvent,
  };
}

/** Config fields the REST body carries beside `contents`; the rest of the SDK's config is `generationConfig`. */
const TOP_LEVEL = new Set(['systemInstruction', 'tools', 'toolConfig', 'safetySettings', 'labels', 'serviceTier']);

function restBody(request: GeminiRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: request.contents };
  const generationConfig: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(request.config)) {
    if (value == null) continue;
    if (TOP_LEVEL.has(field)) body[field] = value;
    else if (field === 'cachedContent') body.cachedContent = resourceName(String(value), 'cachedContents');
    else generationConfig[field] = value;
  }
  body.generationConfig = generationConfig;
  return body;
}

function modelPath(model: string): string {
  return model.startsWith('models/') || model.startsWith('tunedModels/') ? model : `models/${model}`;
}

function resourceName(name: string, collection: string): string {
  return name.startsWith(`${collection}/`) || name.includes('/') ? name : `${collection}/${name}`;
}

/** An event's JSON; an event whose `error` carries an HTTP status fails the stream, as the SDK has it. */
function chunkOfEvent(item: unknown): unknown {
  const chunk = JSON.parse((item as ServerEvent).data) as { error?: { code?: unknown } } | null;
  const code = chunk?.error?.code;
  if (typeof code === 'number' && code >= 400 && code < 600) throw new StreamFailure(chunk);
  return chunk;
}

/** An error status's body as Google's error model, a body that is not JSON wrapped in it as the SDK does. */
export function googleErrorBody(answer: HttpStatusError): unknown {
  if (answer.json !== undefined) return answer.json;
  return { error: { message: answer.text, code: answer.status, status: statusText(answer.status) } };
}
