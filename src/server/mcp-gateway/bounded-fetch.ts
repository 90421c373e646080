/**
 * A `fetch` for an upstream's Streamable HTTP transport whose answers to POSTs (a tool's result, a listing) are cut
 * once their body passes `maxBytes`, and abandoned `holdMs` after they were sent: an upstream can neither fill the
 * gateway's memory with one answer nor hold its connections with answers nobody waits for any more (a stateless
 * server never hears that a call timed out). The long-lived GET stream of notifications is held to lines of
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
 * The long-lived GET stream of notifications, cut once `maxBytes` pass without an end of line: its events are lines,
 * and the SDK's event parser keeps an unended one whole (an upstream sending one endless event would fill the
 * gateway's memory). Its length over time is not bounded: notifications may come for as long as it is open.
 */
function withLinesBounded(response: Response, maxBytes: number): Response {
  if (response.body === null) return response;
  let unended = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const newline = chunk.lastIndexOf(0x0a);
      unended = newline === -1 ? unended + chunk.byteLength : chunk.byteLength - newline - 1;
      if (unended > maxBytes) controller.error(new ResultTooLargeError(maxBytes));
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
