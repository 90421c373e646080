import { expect } from 'vitest';
import { bounded } from './harness.ts';
import { isOpenAIErrorBody, type ServeRig, startServeRig } from './serve-harness.ts';

/**
 * `switchyard serve --mock` for fuzzing (the simulator behind it, so nothing is slow but the server itself), and the
 * contract every fuzzed request is held to: answered, within a bound, with a success or a 4xx whose body is an OpenAI
 * error body (JSON-RPC errors on /mcp), never a 5xx, never a hang; afterwards the server still answers, nothing is
 * polluted and no "unexpected error" was logged.
 */

/** Small, so that bodies over it are cheap to send; the default is 4 MB. */
export const MAX_BODY_BYTES = 64 * 1024;
const REQUEST_BOUND_MS = 10_000;

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface FuzzRig {
  rig: ServeRig;
  counts: {
    cases: number;
    byStatus: Record<string, number>;
    streams: number;
    slowestMs: number;
    unsatisfiableSchema502: number;
  };
  /** Sends one request and checks the contract; returns the status. */
  check(request: RawRequest, label: string): Promise<number>;
  /** A chat completion with the rig's key, as JSON. */
  chat(body: string): RawRequest;
  /** The server still serves, with nothing polluted and no unexpected error logged; then it stops. */
  afterwards(): Promise<void>;
}

export async function startFuzzRig(): Promise<FuzzRig> {
  const rig = await startServeRig(undefined, { mock: true, gateway: { env: {} }, maxBodyBytes: MAX_BODY_BYTES });
  const counts: FuzzRig['counts'] = { cases: 0, byStatus: {}, streams: 0, slowestMs: 0, unsatisfiableSchema502: 0 };

  async function check(request: RawRequest, label: string): Promise<number> {
    counts.cases += 1;
    const started = performance.now();
    const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
    const init: RequestInit = {
      method: request.method,
      headers: request.headers,
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    };
    if (hasBody) init.body = request.body as NonNullable<RequestInit['body']>;
    const response = await bounded(fetch(`${rig.url}${request.path}`, init), REQUEST_BOUND_MS + 1_000, label);
    const text = await bounded(response.text(), REQUEST_BOUND_MS, `${label} (body)`);
    counts.slowestMs = Math.max(counts.slowestMs, Math.round(performance.now() - started));
    const { status } = response;
    counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
    const context = `${label}: ${request.method} ${request.path.slice(0, 120)} → ${status} ${text.slice(0, 300)}`;
    if (status === 502 && JSON.parse(text)?.error?.code === 'structured_output_invalid') {
      // The one 5xx allowed, as in process: a schema no value satisfies (such as a required property that
      // additionalProperties: false forbids). The simulator's answer cannot match it: 502 is the documented answer.
      counts.unsatisfiableSchema502 += 1;
      expect(isOpenAIErrorBody(JSON.parse(text)), context).toBe(true);
      return status;
    }
    expect(status, context).toBeLessThan(500);
    expect(status, context).toBeGreaterThanOrEqual(200);
    if (request.method === 'HEAD') return status;
    const pathname = new URL(request.path, 'http://x').pathname;
    if (status >= 400) {
      const body = JSON.parse(text) as unknown;
      if (/^\/mcp\/?$/.test(pathname) && !isOpenAIErrorBody(body)) {
        // `/mcp` answers in JSON-RPC, as MCP clients expect: the transport, and the route's own refusals.
        expect(body, context).toMatchObject({
          jsonrpc: '2.0',
          error: { code: expect.any(Number), message: expect.any(String) },
        });
      } else {
        expect(isOpenAIErrorBody(body), context).toBe(true);
      }
    } else if (pathname === '/v1/chat/completions') {
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        counts.streams += 1;
        const events = text
          .split('\n\n')
          .filter(Boolean)
          .map((event) => event.replace(/^data: /, ''));
        const last = events.at(-1)!;
        // Either a complete stream, or one that ends in an OpenAI error event: nothing else.
        if (last !== '[DONE]') expect(isOpenAIErrorBody(JSON.parse(last)), context).toBe(true);
      } else {
        expect(JSON.parse(text).object, context).toBe('chat.completion');
      }
      expect(response.headers.get('x-switchyard-call-id'), context).toBeTruthy();
    }
    return status;
  }

  return {
    rig,
    counts,
    check,
    chat: (body) => ({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${rig.key}` },
      body,
    }),
    afterwards: async () => {
      expect((await bounded(fetch(`${rig.url}/v1/models`))).status).toBe(200);
      const answer = await bounded(
        rig
          .openai()
          .chat.completions.create({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'still there?' }] }),
      );
      expect(answer.choices[0]!.message.content).toContain('still there?');
      for (const key of ['polluted', 'role', 'content']) expect(key in Object.prototype, key).toBe(false);
      // gpt-4o is deprecated: serve says so once, a warning expected here.
      const unexpected = rig.logs.filter((line) => line.level !== 'info' && line.msg !== 'model deprecated');
      expect(unexpected).toEqual([]);
      const requests = rig.logs.filter((line) => line.msg === 'request');
      expect(requests.length).toBeGreaterThanOrEqual(counts.cases);
      expect(requests.filter((line) => (line.status as number) >= 500).length).toBe(counts.unsatisfiableSchema502);
      await rig.stop();
    },
  };
}
