import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming as NonStreaming,
} from 'openai/resources/chat/completions';
import type { EmbeddingCreateParams } from 'openai/resources/embeddings';
import type { ResolvedProviderSettings } from '../provider.ts';
import { type Endpoint, endpointOf } from '../wire/http-sender.ts';
import type { ServerEvent } from '../wire/server-events.ts';
import { wireHeaders } from '../wire/wire-headers.ts';
import { postForEvents, postJson, StreamFailure } from '../wire/wire-post.ts';

/** What `chunkOf` makes of the item where the stream ends (`[DONE]`). */
export const STREAM_DONE: unique symbol = Symbol('[DONE]');

/**
 * How the OpenAI adapter reaches an OpenAI-compatible API: straight over HTTP (`wire`, the default) or through the
 * official SDK (`sdk`, and Azure's client). Both hand back the provider's JSON as it came; the adapter checks it.
 */
export interface OpenAITransport {
  complete(body: ChatCompletionCreateParamsBase, signal: AbortSignal | undefined): Promise<unknown>;
  /** Resolves once the response headers arrived; yields an item per chunk (read by `chunkOf`) until the body ends. */
  stream(body: ChatCompletionCreateParamsBase, signal: AbortSignal | undefined): Promise<AsyncIterable<unknown>>;
  /**
   * One item of `stream` as the chunk's JSON, or `STREAM_DONE` where the stream ends. The SDK's items are chunks
   * already; the wire's are server-sent events, read in the adapter's own loop rather than in a generator between.
   */
  chunkOf(item: unknown): unknown;
  embed(body: EmbeddingCreateParams, signal: AbortSignal | undefined): Promise<unknown>;
}

/** The official SDK's client (OpenAI's, or `AzureOpenAI`). */
export function sdkTransport(client: OpenAI): OpenAITransport {
  return {
    complete: (body, signal) => client.chat.completions.create(body as NonStreaming, { signal }),
    stream: (body, signal) => client.chat.completions.create({ ...body, stream: true }, { signal }),
    embed: (body, signal) => client.embeddings.create(body, { signal }),
    chunkOf: (item) => item,
  };
}

/**
 * POST `<baseURL>/chat/completions` and `/embeddings` on the gateway's pooled dispatcher (or the provider's own
 * `fetch`), with the SDK's semantics: Bearer key, `[DONE]` ends a stream, an `error` in an event fails it.
 * `account`: OpenAI's organization and project headers, where the provider is OpenAI itself.
 */
export function wireTransport(settings: ResolvedProviderSettings, account: Record<string, string>): OpenAITransport {
  const send = settings.send;
  const chat = endpointOf(settings.baseURL, '/chat/completions');
  const embeddings = endpointOf(settings.baseURL, '/embeddings');
  const auth = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  const json = wireHeaders({ ...auth, ...account }, settings.headers, 'application/json');
  const events = wireHeaders({ ...auth, ...account }, settings.headers, 'text/event-stream');
  const request = (endpoint: Endpoint, headers: Record<string, string>, body: unknown, signal?: AbortSignal) => ({
    endpoint,
    headers,
    body: JSON.stringify(body),
    signal,
    timeoutMs: settings.timeoutMs,
  });
  return {
    complete: (body, signal) => postJson(send, request(chat, json, body, signal)),
    stream: (body, signal) => postForEvents(send, request(chat, events, { ...body, stream: true }, signal)),
    embed: (body, signal) => postJson(send, request(embeddings, json, body, signal)),
    chunkOf: chunkOfEvent,
  };
}

/** An event's chunk, as the SDK reads it: `[DONE]` ends the stream, an `error` in the event fails it. */
function chunkOfEvent(item: unknown): unknown {
  const { event, data } = item as ServerEvent;
  if (data === '[DONE]') return STREAM_DONE;
  const chunk = JSON.parse(data) as { error?: unknown } | null;
  if (event === 'error') throw new StreamFailure(chunk?.error ?? chunk);
  if (chunk?.error) throw new StreamFailure(chunk.error);
  return chunk;
}
