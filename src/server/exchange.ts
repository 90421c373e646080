/**
 * What a route sees of a request and what it answers, whichever HTTP server runs it. `node-adapter.ts` implements
 * the request straight over `node:http` (no Web `Request`, `Headers` or body stream on the hot path);
 * `web-adapter.ts` over a Web `Request`, for tests in process and other runtimes.
 */
export interface ServerRequest {
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The query string, parsed on first use. */
  readonly query: URLSearchParams;
  /** The address of the client's end of the connection (a proxy's, behind one); absent when the runtime hides it. */
  readonly peer?: string | undefined;
  /** A header's value by its lower-case name. */
  header(name: string): string | undefined;
  /** The whole body, or a 413 `HttpError` as soon as it grows past `maxBytes`. */
  body(maxBytes: number): Promise<Uint8Array>;
  /** Aborted when the client goes away before the answer is complete. */
  readonly signal: AbortSignal;
  /** The same request as a Web `Request`, for handlers built on Web standards (the MCP transport). */
  toWeb(): Request;
}

/** An answer: a complete body is sent in one write with its length; an iterable body is streamed chunk by chunk. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | AsyncIterable<string | Uint8Array> | null;
}

/** A Web `Response` (from a Web-standard handler) as a `Reply`; its body keeps streaming. */
export function replyFromResponse(response: Response): Reply {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: response.body ? iterateStream(response.body) : null };
}

async function* iterateStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Reached early when the client goes away: release the producer.
    await reader.cancel().catch(() => undefined);
  }
}
