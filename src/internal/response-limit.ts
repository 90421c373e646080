/**
 * The size limit on provider answers: a body past it fails with `ResponseTooLargeError` instead of filling memory.
 * The pooled transport enforces it on the wire (undici's `maxResponseSize`) and after decoding (`byteLimit`); a
 * fetch the caller gives is wrapped (`withResponseLimit`).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** A response body passed the size limit; it was not read further. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  readonly code = 'response_too_large';
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`The response body passed the limit of ${limitBytes} bytes.`);
    this.limitBytes = limitBytes;
  }
}

/**
 * A fetch given by the caller, with its response bodies held to `maxBytes` like the pooled transport's: the body
 * errors with a `ResponseTooLargeError` once it passes the limit.
 */
export function withResponseLimit(fetchImpl: typeof fetch, maxBytes: number): typeof fetch {
  // Not an async function: a fetch that throws before it returns a promise still throws here (a local fault, where a
  // rejection is the network's; see fetch-sender.ts).
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    limited(fetchImpl(input, init), maxBytes)) as typeof fetch;
}

async function limited(pending: Promise<Response>, maxBytes: number): Promise<Response> {
  const response = await pending;
  if (!response.body) return response;
  const length = response.headers.get('content-length');
  if (Number(length) > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw new TypeError('fetch failed', { cause: new ResponseTooLargeError(maxBytes) });
  }
  // A body of a known length within the limit cannot pass it (fetch fails a body longer than its length); one
  // that was compressed can, once decoded.
  if (length !== null && !response.headers.has('content-encoding')) return response;
  const bounded = new Response(limitedBody(response.body, maxBytes), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(bounded, 'url', { value: response.url });
  return bounded;
}

/** The body, read chunk by chunk as it is pulled, failing once more than `maxBytes` came (one stream, no pipe). */
function limitedBody(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      total += value.byteLength;
      if (total > maxBytes) {
        controller.error(new ResponseTooLargeError(maxBytes));
        await reader.cancel().catch(() => undefined);
      } else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
