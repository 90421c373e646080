import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bounded, guardUnhandledRejections, MODELS } from './harness.ts';
import {
  type DripServer,
  readTable,
  type ServeRig,
  serveGatewayOptions,
  startDripServer,
  startServeRig,
} from './serve-harness.ts';

/**
 * Shutdown of `switchyard serve` (what SIGTERM runs: `server.close()`) while plain requests and a stream are in
 * flight against a slow provider: the requests complete, the stream ends with `[DONE]`, no new connection is
 * accepted, and each call is a record in the SQLite file afterwards. Then the same when the work outlasts the
 * drain deadline: what the clients see, and what is recorded.
 */

guardUnhandledRejections();
const messages = [{ role: 'user' as const, content: 'slowly, please' }];
const report: string[] = [];
afterAll(() => console.log(`serve shutdown:\n  ${report.join('\n  ')}`));

function rigOptions(drip: DripServer, drainTimeoutMs?: number) {
  return {
    gateway: serveGatewayOptions(undefined, {
      providers: { openai: { apiKey: 'sk-drip-0123456789abcdef0123', baseURL: drip.url } },
      timeoutMs: 30_000,
    }),
    ...(drainTimeoutMs === undefined ? {} : { drainTimeoutMs }),
  };
}

/** Reads an SSE response until its first content chunk; returns the reader and the text so far. */
async function firstChunk(
  response: Response,
): Promise<{ reader: ReadableStreamDefaultReader<Uint8Array>; text: string }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('"content":"drip')) {
    const { value, done } = await bounded(reader.read(), 10_000, 'the first chunk');
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { reader, text };
}

/** The rest of an SSE body: its text, and the error that ended it if it did not end cleanly. */
async function rest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  text: string,
): Promise<{ text: string; error?: unknown }> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await bounded(reader.read(), 20_000, 'the rest of the stream');
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

describe('close() during in-flight requests and an open stream', () => {
  let drip: DripServer;
  let rig: ServeRig;
  beforeAll(async () => {
    drip = await startDripServer({ delayMs: 700, intervalMs: 60, pieces: 10 });
    rig = await startServeRig(undefined, rigOptions(drip));
  });
  afterAll(async () => {
    await rig?.stop();
    await drip?.close();
  });

  it('the requests complete, the stream ends with [DONE], and all four calls are in SQLite', async () => {
    const plain = [1, 2, 3].map((index) =>
      rig.openai().chat.completions.create({
        model: MODELS.openai,
        messages,
        metadata: { agent_id: `plain-${index}`, trace_id: 'shutdown' },
      }),
    );
    const streamed = await bounded(
      rig.post('/v1/chat/completions', {
        model: MODELS.openai,
        messages,
        stream: true,
        metadata: { agent_id: 'streamer', trace_id: 'shutdown' },
      }),
    );
    expect(streamed.status).toBe(200);
    const { reader, text } = await firstChunk(streamed);
    await expect.poll(() => drip.inFlight(), { timeout: 5_000 }).toBe(4);

    const closing = rig.server.close();
    // No new connection once closing began.
    await expect(bounded(fetch(`${rig.url}/v1/models`), 5_000)).rejects.toThrow();
    const answers = await bounded(Promise.all(plain), 15_000, 'the in-flight requests');
    for (const answer of answers) expect(answer.choices[0]!.message.content).toMatch(/^drip( drip)*$/);
    const { text: whole, error } = await rest(reader, text);
    expect(error).toBeUndefined();
    expect(whole.trimEnd().endsWith('data: [DONE]')).toBe(true);
    await bounded(closing, 15_000, 'close()');

    const rows = readTable(rig.dataDir, 'calls').filter((row) => row.trace_id === 'shutdown');
    expect(rows.map((row) => `${row.agent_id}:${row.status}`).sort()).toEqual([
      'plain-1:ok',
      'plain-2:ok',
      'plain-3:ok',
      'streamer:ok',
    ]);
    expect(rig.logs.at(-1)).toMatchObject({ msg: 'stopped', records_written: 4 });
    expect(drip.inFlight()).toBe(0);
    report.push(
      `within the drain deadline: 3 plain requests answered, the stream ended with [DONE], ${rows.length} records ` +
        `in SQLite`,
    );
  }, 30_000);
});

describe('close() when the work outlasts the drain deadline (500 ms)', () => {
  let drip: DripServer;
  let rig: ServeRig;
  beforeAll(async () => {
    drip = await startDripServer({ delayMs: 5_000, intervalMs: 100, pieces: 100 });
    rig = await startServeRig(undefined, rigOptions(drip, 500));
  });
  afterAll(async () => {
    await rig?.stop();
    await drip?.close();
  });

  const late: { rows: Array<Record<string, unknown>>; stats?: { written: number; dropped: number } } = { rows: [] };
  it('connections are cut at the deadline, the clients see an error, the upstream calls are aborted', async () => {
    const plain = rig.post('/v1/chat/completions', {
      model: MODELS.openai,
      messages,
      metadata: { agent_id: 'late-plain', trace_id: 'late' },
    });
    const streamed = await bounded(
      rig.post('/v1/chat/completions', {
        model: MODELS.openai,
        messages,
        stream: true,
        metadata: { agent_id: 'late-stream', trace_id: 'late' },
      }),
    );
    const { reader, text } = await firstChunk(streamed);
    await expect.poll(() => drip.inFlight(), { timeout: 5_000 }).toBe(2);

    const started = performance.now();
    const closing = rig.server.close();
    const plainOutcome = await bounded(
      plain.then(
        (response) => `status ${response.status}`,
        (error: unknown) => `rejected: ${String((error as Error).cause ?? error)}`,
      ),
      10_000,
    );
    const { text: whole, error } = await rest(reader, text);
    await bounded(closing, 15_000, 'close()');
    const closedAfterMs = Math.round(performance.now() - started);

    // The plain request's call is aborted at the deadline: its client gets the 499 error answer.
    expect(plainOutcome).toBe('status 499');
    // The stream is cut: no [DONE]; it ends with an SSE error event (or, at worst, a failed read).
    expect(whole).not.toContain('[DONE]');
    expect(whole.includes('"error"') || error !== undefined).toBe(true);
    // The provider calls were aborted with the connections, not left running.
    await expect.poll(() => drip.inFlight(), { timeout: 5_000 }).toBe(0);
    expect(closedAfterMs).toBeLessThan(5_000);

    late.rows = readTable(rig.dataDir, 'calls').filter((row) => row.trace_id === 'late');
    // Once both aborted calls have settled, their records were written or dropped: see which.
    const settled = () => rig.server.gateway.recordStats.written + rig.server.gateway.recordStats.dropped;
    await expect.poll(settled, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    const { written, dropped } = rig.server.gateway.recordStats;
    late.stats = { written, dropped };
    report.push(
      `past the drain deadline: closed after ${closedAfterMs} ms; plain request ${plainOutcome}; stream cut ` +
        `(${String((error as Error)?.message)}), ${whole.includes('"error"') ? 'with' : 'without'} an error event; ` +
        `records in SQLite: ${late.rows.length}; record queue: written ${written}, dropped ${dropped}`,
    );
  }, 30_000);

  // Regression: close() used to close the record queue before the calls cut at the deadline had settled, so their
  // records were dropped. It now aborts them first and waits (bounded) for them to end.
  it('the calls cut at the deadline are recorded, as errors', () => {
    expect(late.stats?.dropped).toBe(0);
    expect(late.rows.map((row) => `${row.agent_id}:${row.status}`).sort()).toEqual([
      'late-plain:error',
      'late-stream:error',
    ]);
  });

  // Regression: a stream still open at the deadline used to be cut without an error event, so a client reading to
  // the end could take a partial answer for a complete one. The call is now aborted first, and toSSE sends the event.
  it('a stream still open at the deadline ends with an SSE error event', async () => {
    const second = await startServeRig(undefined, rigOptions(drip, 300));
    try {
      const streamed = await bounded(
        second.post('/v1/chat/completions', { model: MODELS.openai, messages, stream: true }),
      );
      const { reader, text } = await firstChunk(streamed);
      const closing = second.server.close();
      const { text: whole } = await rest(reader, text);
      await bounded(closing, 15_000);
      const last = whole.trim().split('\n\n').at(-1) ?? '';
      expect(JSON.parse(last.replace(/^data: /, ''))).toMatchObject({ error: { type: expect.any(String) } });
    } finally {
      await second.stop();
    }
  }, 30_000);
});
