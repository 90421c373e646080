/**
 * A `fetch` for an upstream's Streamable HTTP transport whose answers to POSTs (a tool's result, a listing) are cut
 * once their body passes `maxBytes`, and abandoned `holdMs` after they were sent: an upstream can neither fill the
 * gateway's memory with one answer nor hold its connections with answers nobody waits for any more (a stateless
 * server never hears that a call timed out). The long-lived GET stream of notifications is held to events of
 * `maxBytes` (`withLinesBounded`).
 */
export function boundedFetch(maxBytes: number, holdMs: number, cutMark: string): typeof fetch {
  return async (input, init) => {
    if ((init?.method ?? 'GET') !== 'POST') return withLinesBounded(await fetch(input, init), maxBytes);
    const held = AbortSignal.timeout(holdMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, held]) : held;
    const response = await fetch(input, { ...init, signal });
    if (response.body === null) return response;
    let seen = 0;
    const events = response.headers.get('content-type')?.toLowerCase().startsWith('text/event-stream') === true;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen <= maxBytes) return controller.enqueue(chunk);
        // The SDK reads an event stream apart from the request it answers: an error there never reaches the call,
        // which would wait for its deadline. The stream ends instead with the call's answer: this error.
        const ending = events ? tooLargeEvent(init?.body, maxBytes, cutMark) : undefined;
        if (!ending) return controller.error(new ResultTooLargeError(maxBytes));
        controller.enqueue(new TextEncoder().encode(ending));
        controller.terminate();
      },
    });
    const { status, statusText, headers } = response;
    return new Response(response.body.pipeThrough(limit), { status, statusText, headers });
  };
}

/**
 * The long-lived GET stream of notifications, cut once one event passes `maxBytes`: the SDK's event parser keeps an
 * event whole until its blank line, so an upstream sending one endless event (a line without end, or lines without
 * a blank one) would fill the gateway's memory. Its length over time is not bounded: notifications may come for as
 * long as it is open. Lines end at CR, LF or CRLF, as server-sent events say.
 */
function withLinesBounded(response: Response, maxBytes: number): Response {
  if (response.body === null) return response;
  let event = 0;
  let lineStart = true;
  let afterCr = false;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (const byte of chunk) {
        event += 1;
        if (byte === 0x0a && afterCr) {
          afterCr = false;
          continue;
        }
        afterCr = byte === 0x0d;
        if (byte !== 0x0a && byte !== 0x0d) lineStart = false;
        else if (lineStart) event = 0;
        else lineStart = true;
      }
      if (event > maxBytes) controller.error(new ResultTooLargeError(maxBytes));
      else controller.enqueue(chunk);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(response.body.pipeThrough(limit), { status, statusText, headers });
}

/**
 * What marks the JSON-RPC error a cut event stream ends with (`data.reason`), as `ResultTooLargeError` does: random
 * per upstream, so that the upstream cannot pass an error of its own off as the gateway's bound.
 */
export function cutMark(): string {
  return `switchyard_result_too_large:${crypto.randomUUID()}`;
}

/**
 * The event that ends a stream cut by the bound: a JSON-RPC error answering the request sent (`body`), marked
 * `mark`, after a blank line that closes whatever event was cut. `undefined` when the body is not one request (a
 * notification has no answer to wait for).
 */
function tooLargeEvent(body: unknown, maxBytes: number, mark: string): string | undefined {
  let request: unknown;
  try {
    request = typeof body === 'string' ? JSON.parse(body) : undefined;
  } catch {
    return undefined;
  }
  const id = (request as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const error = {
    code: -32603,
    message: new ResultTooLargeError(maxBytes).message,
    data: { reason: mark },
  };
  return `\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error })}\n\n`;
}

/** An upstream's answer past the gateway's bound. */
export class ResultTooLargeError extends Error {
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes, the bound for this MCP server's results`);
    this.name = 'ResultTooLargeError';
    this.maxBytes = maxBytes;
  }
}
