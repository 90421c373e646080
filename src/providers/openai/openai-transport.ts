import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming as NonStreaming,
} from 'openai/resources/chat/completions';
import type { EmbeddingCreateParams } from 'openai/resources/embeddings';
import type { ResolvedProviderSettings } from '../provider.ts';
import { type Endpoint, endpointOf } from '../wire/http-sender.ts';
import { wireHeaders } from '../wire/wire-headers.ts';
import { postForEvents, postJson, StreamFailure } from '../wire/wire-post.ts';

/**
 * How the OpenAI adapter reaches an OpenAI-compatible API: straight over HTTP (`wire`, the default) or through the
 * official SDK (`sdk`, and Azure's client). Both hand back the provider's JSON as it came; the adapter checks it.
 */
export interface OpenAITransport {
  complete(body: ChatCompletionCreateParamsBase, signal: AbortSignal | undefined): Promise<unknown>;
  /** Resolves once the response headers arrived; yields the chunks' JSON, ending at `[DONE]` or the body's end. */
  stream(body: ChatCompletionCreateParamsBase, signal: AbortSignal | undefined): Promise<AsyncIterable<unknown>>;
  embed(body: EmbeddingCreateParams, signal: AbortSignal | undefined): Promise<unknown>;
}

/** The official SDK's client (OpenAI's, or `AzureOpenAI`). */
export function sdkTransport(client: OpenAI): OpenAITransport {
  return {
    complete: (body, signal) => client.chat.completions.create(body as NonStreaming, { signal }),
    stream: (body, signal) => client.chat.completions.create({ ...body, stream: true }, { signal }),
    embed: (body, signal) => client.embeddings.create(body, { signal }),
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
    async stream(body, signal) {
      return chunksOf(await postForEvents(send, request(chat, events, { ...body, stream: true }, signal)));
    },
    embed: (body, signal) => postJson(send, request(embeddings, json, body, signal)),
  };
}

async function* chunksOf(events: AsyncIterable<{ event: string | undefined; data: string }>): AsyncIterable<unknown> {
  for await (const { event, data } of events) {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as { error?: unknown } | null;
    if (event === 'error') throw new StreamFailure(chunk?.error ?? chunk);
    if (chunk?.error) throw new StreamFailure(chunk.error);
    yield chunk;
  }
}
