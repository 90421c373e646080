import type Anthropic from '@anthropic-ai/sdk';
import type { ResolvedProviderSettings } from '../provider.ts';
import { endpointOf } from '../wire/http-sender.ts';
import type { ServerEvent } from '../wire/server-events.ts';
import { wireHeaders } from '../wire/wire-headers.ts';
import { postForEvents, postJson, StreamFailure } from '../wire/wire-post.ts';

/** What `eventOf` makes of an item that is no event of the message (`ping`, unnamed events). */
export const SKIP: unique symbol = Symbol('skip');

/** The API version the wire transport sends unless a call needs the model's own (as the SDK it follows). */
export const ANTHROPIC_API_VERSION = '2026-10-21';

/**
 * `POST /v1/messages`, either straight over HTTP (`wire`) or through a client of the official SDK (Anthropic's, or
 * Vertex's, which routes it to `:rawPredict`). A streaming body resolves to its events once the headers arrived.
 */
export interface AnthropicTransport {
  send(
    body: { stream: boolean } & Record<string, unknown>,
    options: { signal: AbortSignal | undefined; headers?: Record<string, string> },
  ): Promise<unknown>;
  /**
   * One item of a stream `send` resolved to as the message's event, or `SKIP`. The SDK's items are events already;
   * the wire's are server-sent events, read in the adapter's own loop rather than in a generator between.
   */
  eventOf(item: unknown): unknown;
}

/**
 * Through the client's own `post` (its auth, timeout and SSE parsing). Not `messages.create`: that writes to the
 * console (`console.warn`, no option turns it off) on every call to a model the SDK lists as deprecated, noise in a
 * gateway's output. The catalog's `model_deprecated` warning says it in the answer instead.
 */
export function sdkTransport(client: Pick<Anthropic, 'post'>): AnthropicTransport {
  return {
    send: (body, options) =>
      client.post('/v1/messages', {
        body,
        signal: options.signal ?? null,
        stream: body.stream,
        ...(options.headers ? { headers: options.headers } : {}),
      }),
    eventOf: (item) => item,
  };
}

/** Straight to `<baseURL>/v1/messages` with the key as a Bearer token (as SDK 1.x sends it), read as it reads it. */
export function wireTransport(settings: ResolvedProviderSettings): AnthropicTransport {
  const endpoint = endpointOf(settings.baseURL, '/v1/messages');
  const own = { authorization: `Bearer ${settings.apiKey}`, 'anthropic-version': ANTHROPIC_API_VERSION };
  const json = wireHeaders(own, settings.headers, 'application/json');
  const events = wireHeaders(own, settings.headers, 'text/event-stream');
  return {
    async send(body, options) {
      const base = body.stream ? events : json;
      const request = {
        endpoint,
        headers: options.headers ? wireHeaders(base, options.headers, base.accept!) : base,
        body: JSON.stringify(body),
        signal: options.signal,
        timeoutMs: settings.timeoutMs,
      };
      if (!body.stream) return postJson(settings.send, request);
      return postForEvents(settings.send, request);
    },
    eventOf: messageEvent,
  };
}

/** An event as the SDK yields it: `ping` and unnamed events (and empty data) skipped, an `error` event thrown. */
function messageEvent(item: unknown): unknown {
  const { event, data } = item as ServerEvent;
  if (event === 'ping' || event === undefined) return SKIP;
  if (event === 'error') throw new StreamFailure(parsedOr(data));
  return data ? JSON.parse(data) : SKIP;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
