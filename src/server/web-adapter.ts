import type { Reply, ServerRequest } from './exchange.ts';
import { bodyTooLarge } from './read-json-body.ts';

/** A Web `Request` as a `ServerRequest`. */
export function fromWebRequest(request: Request): ServerRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    header: (name) => request.headers.get(name) ?? undefined,
    body: (maxBytes) => readWebBody(request, maxBytes),
    signal: request.signal,
    toWeb: () => request,
  };
}

/** A `Reply` as a Web `Response`. */
export function toWebResponse(reply: Reply): Response {
  const { body } = reply;
  const init = { status: reply.status, headers: reply.headers };
  if (body === null || typeof body === 'string') return new Response(body, init);
  if (body instanceof Uint8Array) return new Response(new Uint8Array(body), init);
  const encoder = new TextEncoder();
  const chunks = body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
  return new Response(stream, init);
}

/**
 * A declared `Content-Length` over `maxBytes` is refused before reading; a body that grows past it while streaming
 * (chunked uploads) is refused as soon as it does, without buffering the rest.
 */
async function readWebBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (Number(request.headers.get('content-length') ?? Number.NaN) > maxBytes) throw bodyTooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
