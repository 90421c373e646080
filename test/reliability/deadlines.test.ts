import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CompletionStream, createGateway, type Gateway, type GatewayOptions } from '../../src/index.ts';
import { type RawAnswerServer, startRawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import { bounded, catalog, guardUnhandledRejections, KEYS, MODELS, rejection } from './harness.ts';

/**
 * Limits that hold: the call's deadline aborts an attempt in flight, the first-token and idle limits of streams
 * retry a provider that stalls before the caller saw anything and cut one that stalls after, answer bodies stop at
 * their size limit (compressed or not, the pooled transport or the caller's own fetch), and the connections to one
 * provider stay within their limit. Each wait here is a hang guard, never a speed assertion: a limit that did not
 * hold leaves the call waiting on a reply that comes seconds later, and the guard fails the test.
 */
guardUnhandledRejections();

const envelope = { id: 'chatcmpl-d', object: 'chat.completion', created: 1_760_000_000, model: 'gpt-4o' };
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const answer = (content: string) =>
  JSON.stringify({
    ...envelope,
    choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
    usage,
  });
const chunk = (delta: object, finish: string | null = null) => {
  const choices = [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  return `data: ${JSON.stringify({ ...envelope, object: 'chat.completion.chunk', choices })}`;
};
const streamOf = (...pieces: Array<string | number>) => [
  chunk({ role: 'assistant', content: '' }),
  ...pieces.map((piece) => (typeof piece === 'number' ? piece : chunk({ content: piece }))),
  chunk({}, 'stop'),
  'data: [DONE]',
];
const ask = { model: MODELS.openai, messages: [{ role: 'user' as const, content: 'hi' }] };

let raw: RawAnswerServer;
const gateways: Gateway[] = [];
beforeAll(async () => {
  raw = await startRawAnswerServer();
  // The SDK and the adapter's modules load on a gateway's first call to the provider, and that time counts against a
  // deadline too: one call here loads them, so that the deadlines below measure only the provider's answer, even on
  // a busy machine (a clean-clone CI, beside the type check, once spent the 500 ms before the attempt started).
  await import('openai');
  raw.enqueue({ json: answer('warm') });
  await gateway().createCompletion(ask);
  await Promise.all(gateways.splice(0).map((warm) => warm.close()));
});
afterEach(async () => {
  raw.reset();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});
afterAll(async () => {
  await raw.close();
});

function gateway(options: GatewayOptions = {}, openai: Record<string, unknown> = {}): Gateway {
  const created = createGateway({
    catalog,
    env: {},
    providers: { openai: { apiKey: KEYS.openai, baseURL: `${raw.origin}/v1`, ...openai } },
    retry: { initialDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  gateways.push(created);
  return created;
}

async function drain(stream: CompletionStream): Promise<string> {
  let text = '';
  for await (const piece of stream) text += piece.choices[0]?.delta.content ?? '';
  return text;
}

describe('retry.totalTimeoutMs is the deadline of the whole call', () => {
  it('aborts the attempt in flight when the deadline passes (it used to run for the whole slow reply)', async () => {
    raw.enqueue({ json: answer('late'), delayMs: 5_000 });
    const error = await rejection(gateway({ retry: { totalTimeoutMs: 500 } }).createCompletion(ask), 3_000);
    expect(error).toMatchObject({ status: 504, code: 'deadline_exceeded', type: 'timeout_error', retryable: false });
    expect(error.message).toMatch(/total time of 500 ms/);
    expect(error.attempts).toEqual([
      expect.objectContaining({ provider: 'openai', outcome: 'deadline_exceeded', status: 504 }),
    ]);
  });

  it('holds across retries: no retry starts past the deadline', async () => {
    const warm = gateway({ retry: { totalTimeoutMs: 1_000, initialDelayMs: 2_000, maxDelayMs: 2_000 } });
    raw.enqueue({ status: 500, json: '{"error":{"message":"boom","type":"server_error"}}' });
    const error = await rejection(warm.createCompletion(ask), 3_000);
    expect(error).toMatchObject({ code: 'deadline_exceeded' });
    expect(error.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['server_error']);
  });

  it('a per-call retry option sets the deadline of that call', async () => {
    raw.enqueue({ json: answer('late'), delayMs: 5_000 });
    const error = await rejection(gateway().createCompletion(ask, { retry: { totalTimeoutMs: 500 } }), 3_000);
    expect(error).toMatchObject({ code: 'deadline_exceeded' });
  });
});

describe('first-token and idle limits of streams', () => {
  it('retries an attempt without content within firstTokenTimeoutMs (a role chunk is not content)', async () => {
    raw.enqueue(
      { events: [chunk({ role: 'assistant', content: '' }), 5_000, chunk({ content: 'late' })] },
      { events: streamOf('on ', 'time') },
    );
    const stream = await bounded(
      gateway({ firstTokenTimeoutMs: 200 }).createCompletion({ ...ask, stream: true }),
      3_000,
    );
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['first_token_timeout', 'ok']);
    expect(await drain(stream)).toBe('on time');
  });

  it('a provider setting overrides the gateway, and a call option overrides both', async () => {
    raw.enqueue({ events: streamOf(400, 'slow but allowed') });
    const perProvider = gateway({ firstTokenTimeoutMs: 100 }, { firstTokenTimeoutMs: 3_000 });
    expect(await drain(await perProvider.createCompletion({ ...ask, stream: true }))).toBe('slow but allowed');
    raw.enqueue({ events: streamOf(5_000, 'too slow') }, { events: streamOf('fast') });
    const stream = await bounded(
      perProvider.createCompletion({ ...ask, stream: true }, { firstTokenTimeoutMs: 150 }),
      3_000,
    );
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['first_token_timeout', 'ok']);
  });

  it('an idle provider before the first content fails the attempt, which is retried', async () => {
    raw.enqueue({ events: [chunk({ role: 'assistant', content: '' }), 5_000] }, { events: streamOf('second try') });
    const stream = await bounded(
      gateway({ streamIdleTimeoutMs: 200 }).createCompletion({ ...ask, stream: true }),
      3_000,
    );
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['stream_idle_timeout', 'ok']);
    expect(await drain(stream)).toBe('second try');
  });

  it('a provider idle after the caller has content ends the stream (StreamInterruptedError), recorded', async () => {
    raw.enqueue({ events: streamOf('Hel', 5_000, 'lo') });
    const idle = gateway({ streamIdleTimeoutMs: 200 });
    const stream = await idle.createCompletion({ ...ask, stream: true });
    const received: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const piece of stream) received.push(piece.choices[0]?.delta.content ?? '');
      })(),
      3_000,
    );
    expect(received.join('')).toBe('Hel');
    expect(error).toMatchObject({ name: 'StreamInterruptedError', code: 'stream_idle_timeout', retryable: false });
    await idle.flush();
    const record = (await idle.calls.list({ limit: 1 })).data[0]!;
    expect(record).toMatchObject({
      id: stream.switchyard.call_id,
      status: 'error',
      error: { code: 'stream_idle_timeout' },
    });
  });

  it('time the caller takes between reads is not idle time', async () => {
    raw.enqueue({ events: streamOf('a', 'b', 'c') });
    const stream = await gateway({ streamIdleTimeoutMs: 150 }).createCompletion({ ...ask, stream: true });
    let text = '';
    for await (const piece of stream) {
      text += piece.choices[0]?.delta.content ?? '';
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(text).toBe('abc');
  });
});

describe('answer size limit (maxResponseBytes)', () => {
  const big = answer('x'.repeat(2_000_000));

  it('refuses a body larger than the limit with response_too_large, not retried', async () => {
    raw.enqueue({ json: big });
    const error = await rejection(gateway({ maxResponseBytes: 1_000_000 }).createCompletion(ask));
    expect(error).toMatchObject({ status: 502, code: 'response_too_large', retryable: false });
    expect(error.attempts).toHaveLength(1);
  });

  it('counts the decoded size of a compressed body (2 MB that travel as a few kilobytes)', async () => {
    raw.enqueue({ json: big, gzip: true });
    const error = await rejection(gateway({ maxResponseBytes: 1_000_000 }).createCompletion(ask));
    expect(error).toMatchObject({ code: 'response_too_large' });
  });

  it('holds for a fetch the caller gives too', async () => {
    raw.enqueue({ json: big });
    const error = await rejection(
      gateway({ maxResponseBytes: 1_000_000 }, { fetch: globalThis.fetch }).createCompletion(ask),
    );
    expect(error).toMatchObject({ code: 'response_too_large' });
  });

  it('cuts a stream that grows past the limit', async () => {
    raw.enqueue({ events: streamOf(...Array.from({ length: 40 }, () => 'y'.repeat(50_000))) });
    const stream = await gateway({ maxResponseBytes: 1_000_000 }).createCompletion({ ...ask, stream: true });
    const error = await rejection(drain(stream));
    expect(error).toMatchObject({ name: 'StreamInterruptedError', code: 'response_too_large' });
  });

  it('answers under the limit pass', async () => {
    raw.enqueue({ json: answer('small') });
    const response = await gateway({ maxResponseBytes: 1_000_000 }).createCompletion(ask);
    expect(response.choices[0]!.message.content).toBe('small');
  });
});

describe('connections per provider (maxConnectionsPerProvider)', () => {
  it('keeps at most that many requests open to the provider; the others wait their turn', async () => {
    const own = await startRawAnswerServer();
    try {
      const limited = createGateway({
        catalog,
        env: {},
        providers: { openai: { apiKey: KEYS.openai, baseURL: `${own.origin}/v1` } },
        maxConnectionsPerProvider: 2,
      });
      gateways.push(limited);
      own.enqueue(...Array.from({ length: 6 }, (_, index) => ({ json: answer(`n${index}`), delayMs: 150 })));
      const answers = await bounded(Promise.all(Array.from({ length: 6 }, () => limited.createCompletion(ask))), 5_000);
      expect(answers.map((response) => response.choices[0]!.message.content).sort()).toEqual([
        'n0',
        'n1',
        'n2',
        'n3',
        'n4',
        'n5',
      ]);
      expect(own.maxInFlight).toBe(2);
    } finally {
      await own.close();
    }
  });
});
