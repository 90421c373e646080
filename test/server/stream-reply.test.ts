import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Backends, bounded, MODELS, startBackends } from '../reliability/harness.ts';
import { type ServeRig, startServeRig } from '../reliability/serve-harness.ts';

/**
 * Issue 37, item 4: the three dialects stream through one reply. Each route built its own SSE answer, and they had
 * drifted: only chat said `x-accel-buffering: no`, so an nginx in front buffered Responses and Messages streams.
 * Through the real server, against the fake OpenAI behind its fault-injecting front: the same stream headers on
 * every dialect, and a client leaving mid-stream is handled the same way (the upstream request closed, the exchange
 * logged as aborted, the call recorded as a stream that failed).
 */
let backends: Backends;
let rig: ServeRig;
beforeAll(async () => {
  backends = await startBackends();
  rig = await startServeRig(backends);
});
afterAll(async () => {
  await rig?.stop();
  await backends?.close();
});
afterEach(() => backends.front.openai.reset());

const model = MODELS.openai;
const input = 'Say hello';
const DIALECTS = [
  {
    name: 'chat',
    path: '/v1/chat/completions',
    body: (agent: string) => ({
      model,
      stream: true,
      messages: [{ role: 'user', content: input }],
      metadata: { agent_id: agent },
    }),
  },
  {
    name: 'responses',
    path: '/v1/responses',
    body: (agent: string) => ({ model, stream: true, input, metadata: { agent_id: agent } }),
  },
  {
    name: 'messages',
    path: '/v1/messages',
    body: (agent: string) => ({
      model,
      stream: true,
      max_tokens: 256,
      messages: [{ role: 'user', content: input }],
      metadata: { agent_id: agent },
    }),
  },
] as const;

/** The headers a stream's framing depends on, as a proxy in front of the server reads them. */
const STREAM_HEADERS = ['content-type', 'cache-control', 'x-accel-buffering'] as const;
const CALL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Reads a streamed answer until its text holds `marker`. */
async function readUntil(body: ReadableStream<Uint8Array>, marker: string): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before "${marker}": ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

describe('the streaming reply of every dialect', () => {
  it('sends the same stream headers on chat, Responses and Messages', async () => {
    const seen: Record<string, Record<string, string | null>> = {};
    for (const dialect of DIALECTS) {
      const response = await bounded(rig.post(dialect.path, dialect.body(`headers-${dialect.name}`)));
      expect(response.status, dialect.name).toBe(200);
      seen[dialect.name] = Object.fromEntries(STREAM_HEADERS.map((name) => [name, response.headers.get(name)]));
      expect(response.headers.get('x-switchyard-call-id'), dialect.name).toMatch(CALL_ID);
      await bounded(response.text(), 10_000, `the ${dialect.name} stream`);
    }
    const expected = {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    };
    expect(seen).toEqual({ chat: expected, responses: expected, messages: expected });
  });

  it.each(DIALECTS)(
    '$name: a client leaving mid-stream aborts the upstream request and is recorded',
    async (dialect) => {
      const front = backends.front.openai;
      // The fake's first events (through "Hello"), then nothing: the upstream answer ends only if the server cuts it.
      front.enqueue({ kind: 'stall', events: 3 });
      const agent = `leaver-${dialect.name}`;
      const controller = new AbortController();
      const response = await bounded(
        fetch(`${rig.url}${dialect.path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${rig.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(dialect.body(agent)),
          signal: controller.signal,
        }),
      );
      const callId = response.headers.get('x-switchyard-call-id');
      expect(callId).toMatch(CALL_ID);
      await bounded(readUntil(response.body!, 'Hello'), 10_000, `the ${dialect.name} stream's first text`);
      expect(front.requests).toHaveLength(1);
      controller.abort();

      expect(await front.settled(5_000), 'the upstream request is still open').toBe(0);
      await expect
        .poll(() => rig.logs.find((line) => line.msg === 'request' && line.call_id === callId), { timeout: 5_000 })
        .toMatchObject({ status: 200, aborted: true });
      await rig.server.gateway.flush();
      const [record] = (await rig.server.gateway.calls.list({ agent_id: agent })).data;
      expect(record).toMatchObject({ id: callId, status: 'error', stream: true, error: { code: 'aborted' } });
    },
  );
});
