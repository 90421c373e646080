import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CompletionStream, ProviderError, StreamInterruptedError } from '../../src/index.ts';
import { EVENTS_UNTIL_HELLO_FROM, FALLBACK, greeting, hello, statusFault } from './fault-rows.ts';
import {
  type Backends,
  bounded,
  drain,
  gatewayFor,
  guardUnhandledRejections,
  MODELS,
  PROVIDERS,
  type ProviderName,
  rejection,
  startBackends,
  text,
} from './harness.ts';

/**
 * What only an in-process caller of the fault matrix (fault-matrix.test.ts) can do or see: a stream spliced onto
 * its fallback, a stream left with `break`, an `AbortSignal`, and the time a backoff really takes. The same guards
 * run after every test: no unhandled rejection, nothing hung, nothing left attached to a connection.
 */

let backends: Backends;
beforeAll(async () => {
  backends = await startBackends();
});
afterAll(() => backends.close());
guardUnhandledRejections();
afterEach(async () => {
  for (const provider of PROVIDERS) {
    const front = backends.front[provider];
    expect(await front.settled(), `${provider}: responses still attached to a connection after the test`).toBe(0);
    front.reset();
  }
});

const outcomes = (error: { attempts: Array<{ provider: string; status?: number; outcome: string }> }) =>
  error.attempts.map((attempt) => `${attempt.provider}:${attempt.status ?? attempt.outcome}`);

/** Reads `stream` to its end; once `text` has arrived, aborts `controller` (the stream goes on to its error). */
async function abortOnce(stream: CompletionStream, controller: AbortController, after: string) {
  let received = '';
  return drain(
    (async function* () {
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta.content ?? '';
        if (received === after) controller.abort();
        yield chunk;
      }
    })(),
  );
}

describe('the default wait', () => {
  it('spends the time a retry-after asks for (the matrix notes the waits instead)', async () => {
    const front = backends.front.openai;
    front.enqueue(statusFault('openai', 429, 'Rate limit reached', { type: 'requests' }, { 'retry-after-ms': '200' }));
    const response = await bounded(gatewayFor(backends).createCompletion({ model: MODELS.openai, messages: hello }));
    expect(response.choices[0]!.message.content).toBe(greeting('openai'));
    // A lower bound: correctness, not speed.
    expect(front.requests[1]!.at - front.requests[0]!.at).toBeGreaterThanOrEqual(190);
  });
});

describe('a stream cut mid-way with a fallback: the answer goes on there, spliced in (stream failover)', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    const next = FALLBACK[provider];
    backends.front[provider].enqueue({ kind: 'truncate', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    // Each fake greets as usual, and the fallback, asked with the partial answer, answers the rest of the greeting.
    const rest = ` fake ${MODELS[provider]}`;
    const reply = (body: unknown, name: ProviderName) =>
      JSON.stringify(body).includes('Hello from') ? rest : greeting(name);
    backends.openai.respondWith = (body) => ({ content: reply(body, 'openai') });
    backends.anthropic.respondWith = (body) => ({ content: [{ type: 'text', text: reply(body, 'anthropic') }] });
    backends.google.respondWith = (body) => ({ text: reply(body, 'google') });
    try {
      const gateway = gatewayFor(backends);
      const request = { model: MODELS[provider], messages: hello, stream: true as const, fallbacks: [MODELS[next]] };
      const { chunks, error } = await drain(await bounded(gateway.createCompletion(request)));
      expect(error).toBeUndefined();
      expect(text(chunks)).toBe(greeting(provider));
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
      await gateway.flush();
      const [record] = (await gateway.calls.list()).data;
      expect(record).toMatchObject({ stream: true, status: 'ok', output: { content: greeting(provider) } });
      expect(record?.attempts.map((attempt) => [attempt.provider, attempt.outcome])).toEqual([
        [provider, 'stream_interrupted'],
        [next, 'ok'],
      ]);
    } finally {
      for (const name of PROVIDERS) backends[name].respondWith = undefined;
    }
  });
});

describe('stream left early or aborted by the caller: the connection is closed', () => {
  it.each(PROVIDERS)('%s: break after the first chunk of a stream that would never end', async (provider) => {
    const front = backends.front[provider];
    front.enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    const stream = await bounded(
      gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello, stream: true }),
    );
    await bounded(
      (async () => {
        for await (const chunk of stream) {
          expect(chunk.object).toBe('chat.completion.chunk');
          break;
        }
      })(),
    );
    // The stalled response is only released when the client closes the connection.
    expect(await front.settled()).toBe(0);
  });

  it.each(PROVIDERS)('%s: AbortSignal before the answer → 499 aborted, at once, socket closed', async (provider) => {
    const front = backends.front[provider];
    front.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const call = gatewayFor(backends).createCompletion(
      { model: MODELS[provider], messages: hello },
      { signal: controller.signal },
    );
    // Aborted once the provider has the request, and no answer will come.
    await expect.poll(() => front.requests.length, { timeout: 5_000 }).toBe(1);
    controller.abort();
    const error = await rejection(call);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 499, code: 'aborted', retryable: false });
    expect(outcomes(error)).toEqual([`${provider}:499`]);
    expect(await front.settled()).toBe(0);
  });

  it.each(PROVIDERS)('%s: AbortSignal in the middle of a stream → the connection is closed', async (provider) => {
    const front = backends.front[provider];
    front.enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    const controller = new AbortController();
    const stream = await bounded(
      gatewayFor(backends).createCompletion(
        { model: MODELS[provider], messages: hello, stream: true },
        { signal: controller.signal },
      ),
    );
    const { chunks } = await abortOnce(stream, controller, 'Hello from');
    expect(text(chunks)).toBe('Hello from');
    expect(await front.settled()).toBe(0);
  });
});

describe('a stream aborted by the caller must not look finished', () => {
  // Regression (fixed; was a bug in the OpenAI adapter's #convertChunks): the openai SDK ends a stream quietly when
  // its signal aborts, and the adapter did not check `signal.aborted` afterwards (the Anthropic adapter did): the
  // caller's loop ended as if the answer were complete, and the call record said status "ok".
  it.each(PROVIDERS)('%s: the iterator throws 499 aborted, the record says error', async (provider) => {
    backends.front[provider].enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    const controller = new AbortController();
    const gateway = gatewayFor(backends);
    const stream = await bounded(
      gateway.createCompletion(
        { model: MODELS[provider], messages: hello, stream: true },
        { signal: controller.signal },
      ),
    );
    const { error } = await abortOnce(stream, controller, 'Hello from');
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toMatchObject({ status: 499, code: 'aborted' });
    await gateway.flush();
    expect((await gateway.calls.list()).data[0]).toMatchObject({ status: 'error', error: { code: 'aborted' } });
  });
});
