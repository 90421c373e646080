/**
 * A `fetch` for an upstream's Streamable HTTP transport whose answers to POSTs (a tool's result, a listing) are cut
 * once their body passes `maxBytes`, and abandoned `holdMs` after they were sent: an upstream can neither fill the
 * gateway's memory with one answer nor hold its connections with answers nobody waits for any more (a stateless
 * server never hears that a call timed out). The long-lived GET stream of notifications is held to events of
 * `maxBytes` (`withLinesBounded`).
 */
export function boundedFetch(maxBytes: number, holdMs: number): typeof fetch {
  return async (input, init) => {
    if ((init?.method ?? 'GET') !== 'POST') return withLinesBounded(await fetch(input, init), maxBytes);
    const held = AbortSignal.timeout(holdMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, held]) : held;
    const response = await fetch(input, { ...init, signal });
    if (response.body === null) return response;
    let seen = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new ResultTooLargeError(maxBytes));
        else controller.enqueue(chunk);
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

/** An upstream's answer past the gateway's bound. */
export class ResultTooLargeError extends Error {
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes, the bound for this MCP server's results`);
    this.name = 'ResultTooLargeError';
    this.maxBytes = maxBytes;
  }
}
