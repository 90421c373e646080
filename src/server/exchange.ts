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

/** A streamed answer of any dialect: its call's id and its events, already framed as server-sent events. */
export interface EventStream {
  readonly switchyard: { readonly call_id: string };
  sseEvents(): AsyncIterable<string>;
}

/**
 * The one streaming reply of every dialect (chat, Responses, Messages): server-sent events that no cache keeps and no
 * proxy holds back (nginx buffers unless told `x-accel-buffering: no`), with the call's id. The adapters write each
 * event as soon as it exists; a client leaving aborts the call through the request's signal (the route gives it to
 * the call), and the events' own `finally` closes the provider's stream, so the call ends and is recorded.
 */
export function streamReply(stream: EventStream): Reply {
  return {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-switchyard-call-id': stream.switchyard.call_id,
    },
    body: stream.sseEvents(),
  };
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
