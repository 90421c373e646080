import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a fake provider saw of one request. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
  /** The client closed the connection before the answer was complete (it aborted), where the fake tracks it. */
  closedEarly?: boolean;
}

/**
 * The plumbing every fake provider shares: a loopback `node:http` server whose handler gets the request body
 * already parsed as JSON (`{}` when empty; a multipart body is not parsed: its bytes are `raw`), and a `close` that
 * cuts keep-alive connections too.
 */
export async function startFakeHttpServer(
  handle: (request: IncomingMessage, response: ServerResponse, body: Record<string, any>, raw: Buffer) => unknown,
): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const multipart = request.headers['content-type']?.startsWith('multipart/') ?? false;
    const body = chunks.length && !multipart ? (JSON.parse(raw.toString('utf8')) as Record<string, any>) : {};
    await handle(request, response, body, raw);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJSON(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Text cut into 5-character deltas, as streams deliver it. */
export function pieces(text: string): string[] {
  const result: string[] = [];
  for (let index = 0; index < text.length; index += 5) result.push(text.slice(index, index + 5));
  return result;
}

/**
 * A generated text held to a request's limits, as a provider would: cut before the first stop sequence, then at the
 * output-token limit. Tokens are counted at four characters each, as the simulator counts them, so that comparing
 * the two compares conversions, not tokenizers.
 */
export function withinLimits(
  text: string,
  limits: { maxTokens?: number | null | undefined; stop?: readonly string[] | null | undefined },
): { text: string; cut?: 'length' | 'stop'; stopSequence?: string } {
  let result: { text: string; cut?: 'length' | 'stop'; stopSequence?: string } = { text };
  let at = Infinity;
  for (const stop of limits.stop ?? []) {
    const found = text.indexOf(stop);
    if (found >= 0 && found < at) {
      at = found;
      result = { text: text.slice(0, found), cut: 'stop', stopSequence: stop };
    }
  }
  if (limits.maxTokens != null && Math.ceil(result.text.length / 4) > limits.maxTokens)
    result = { text: result.text.slice(0, limits.maxTokens * 4), cut: 'length' };
  return result;
}
