import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  type CompletionStream,
  InvalidRequestError,
  MissingCredentialsError,
  ModelNotFoundError,
  ProviderError,
  RateLimitError,
  StreamInterruptedError,
  SwitchyardError,
} from '../../src/index.ts';
import type { Fault } from './faulty-server.ts';
import {
  type Backends,
  bounded,
  drain,
  errorBody,
  gatewayFor,
  guardUnhandledRejections,
  KEYS,
  MODELS,
  PROVIDERS,
  type ProviderName,
  providerSettings,
  rejection,
  startBackends,
  text,
} from './harness.ts';

/**
 * The fault matrix: every fault a provider (or the network to it) can produce, for an OpenAI-family model, an
 * Anthropic model and a Gemini model, each driven through the real SDK against the fake servers behind a
 * fault-injecting front. Every call must end in an answer (after a retry or a fallback) or in a typed
 * SwitchyardError carrying the attempt chain; and after every test no unhandled rejection was seen, every call
 * settled within a bound (a hang guard, not a speed check), and no response is left open on the fronts
 * (idle keep-alive sockets are fine, a stream or a hung request still attached to a socket is not).
 */

let backends: Backends;
beforeAll(async () => {
  backends = await startBackends();
});
const injected: Record<string, number> = {};
afterAll(async () => {
  const idle = PROVIDERS.map((provider) => `${provider} ${backends.front[provider].openSockets()}`).join(', ');
  console.log(
    `fault matrix: faults injected ${JSON.stringify(injected)}; idle keep-alive sockets left at the end: ${idle}`,
  );
  await backends.close();
});
guardUnhandledRejections();
afterEach(async () => {
  for (const provider of PROVIDERS) {
    const front = backends.front[provider];
    expect(await front.settled(), `${provider}: responses still attached to a connection after the test`).toBe(0);
    for (const request of front.requests)
      if (request.fault !== 'pass')
        injected[`${provider}:${request.fault}`] = (injected[`${provider}:${request.fault}`] ?? 0) + 1;
    front.reset();
  }
});

const hello = [{ role: 'user' as const, content: 'Say hello' }];
/** The fake servers greet with `Hello from fake <model>`. */
const greeting = (provider: ProviderName) => `Hello from fake ${MODELS[provider]}`;
/** Another provider's model, for `fallbacks`. */
const FALLBACK: Record<ProviderName, ProviderName> = { openai: 'anthropic', anthropic: 'google', google: 'openai' };
/** Server-sent events that carry "Hello from" in each provider's stream (the fakes send text in 5-character pieces). */
const EVENTS_UNTIL_HELLO_FROM: Record<ProviderName, number> = { openai: 3, anthropic: 5, google: 2 };

function statusFault(
  provider: ProviderName,
  status: number,
  message: string,
  extra: Parameters<typeof errorBody>[3] = {},
  headers: Record<string, string> = {},
): Fault {
  return { kind: 'status', status, body: errorBody(provider, status, message, extra), headers };
}

const outcomes = (error: { attempts: Array<{ provider: string; status?: number; outcome: string }> }) =>
  error.attempts.map((attempt) => `${attempt.provider}:${attempt.status ?? attempt.outcome}`);

describe('429 with retry-after: waits as told, retries, answers', () => {
  const faults: Record<ProviderName, Fault> = {
    openai: statusFault(
      'openai',
      429,
      'Rate limit reached for requests',
      { type: 'requests', code: 'rate_limit_exceeded' },
      { 'retry-after': '1' },
    ),
    anthropic: statusFault(
      'anthropic',
      429,
      'Number of requests has exceeded your rate limit',
      { type: 'rate_limit_error' },
      { 'retry-after': '1' },
    ),
    google: statusFault('google', 429, 'Resource has been exhausted (e.g. check quota).', {
      googleStatus: 'RESOURCE_EXHAUSTED',
      retryDelay: '1s',
    }),
  };
  it.each(PROVIDERS)('%s', async (provider) => {
    const front = backends.front[provider];
    front.enqueue(faults[provider]);
    const response = await bounded(gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello }));
    expect(response.choices[0]!.message.content).toBe(greeting(provider));
    expect(response.switchyard.attempts).toEqual([
      expect.objectContaining({ provider, status: 429 }),
      expect.objectContaining({ provider, outcome: 'ok' }),
    ]);
    // The retry came after the second the provider asked for (a lower bound: correctness, not speed).
    expect(front.requests[1]!.at - front.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it.each(PROVIDERS)('%s: still rate limited after every retry → RateLimitError with the chain', async (provider) => {
    // No retry-after this time (the gateway's own short backoff applies), and no end to it.
    const limited = {
      openai: statusFault('openai', 429, 'Rate limit reached for requests', {
        type: 'requests',
        code: 'rate_limit_exceeded',
      }),
      anthropic: statusFault('anthropic', 429, 'Number of requests has exceeded your rate limit', {
        type: 'rate_limit_error',
      }),
      google: statusFault('google', 429, 'Quota exceeded', { googleStatus: 'RESOURCE_EXHAUSTED' }),
    }[provider];
    backends.front[provider].enqueue(limited, limited, limited);
    const error = await rejection(gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_error', provider, retryable: true });
    expect(outcomes(error)).toEqual([`${provider}:429`, `${provider}:429`, `${provider}:429`]);
  });
});

describe('500: retried, then answered', () => {
  const faults: Record<ProviderName, Fault> = {
    openai: statusFault('openai', 500, 'The server had an error while processing your request.'),
    anthropic: statusFault('anthropic', 500, 'Internal server error', { type: 'api_error' }),
    google: statusFault('google', 500, 'An internal error has occurred.', { googleStatus: 'INTERNAL' }),
  };
  it.each(PROVIDERS)('%s', async (provider) => {
    backends.front[provider].enqueue(faults[provider]);
    const response = await bounded(gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello }));
    expect(response.choices[0]!.message.content).toBe(greeting(provider));
    expect(outcomes(response.switchyard)).toEqual([`${provider}:500`, `${provider}:ok`]);
  });
});

describe('503 on every retry: a typed error with the chain; with fallbacks, the next model answers', () => {
  const faults: Record<ProviderName, Fault> = {
    openai: statusFault('openai', 503, 'The engine is currently overloaded, please try again later.'),
    anthropic: statusFault('anthropic', 503, 'Service unavailable', { type: 'api_error' }),
    google: statusFault('google', 503, 'The model is overloaded. Please try again later.', {
      googleStatus: 'UNAVAILABLE',
    }),
  };
  it.each(PROVIDERS)('%s', async (provider) => {
    const front = backends.front[provider];
    front.enqueue(faults[provider], faults[provider], faults[provider]);
    const error = await rejection(gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 503, type: 'api_error', provider, model: MODELS[provider], retryable: true });
    expect(outcomes(error)).toEqual([`${provider}:503`, `${provider}:503`, `${provider}:503`]);

    const other = FALLBACK[provider];
    front.enqueue(faults[provider], faults[provider], faults[provider]);
    const response = await bounded(
      gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello, fallbacks: [MODELS[other]] }),
    );
    expect(response.switchyard).toMatchObject({ provider: other, model: MODELS[other] });
    expect(response.choices[0]!.message.content).toBe(greeting(other));
    expect(outcomes(response.switchyard)).toEqual([
      `${provider}:503`,
      `${provider}:503`,
      `${provider}:503`,
      `${other}:ok`,
    ]);
  });

  it('openai: the same model is served by its next provider (OpenRouter) before any fallback model', async () => {
    const fault = faults.openai;
    backends.front.openai.enqueue(fault, fault, fault);
    const response = await bounded(
      gatewayFor(backends).createCompletion({ model: 'gpt-4o-mini-2024-07-18', messages: hello }),
    );
    expect(outcomes(response.switchyard)).toEqual(['openai:503', 'openai:503', 'openai:503', 'openrouter:ok']);
    expect(JSON.parse(backends.front.openai.requests[3]!.body).model).toBe('openai/gpt-4o-mini-2024-07-18');
  });
});

describe('529 overloaded (Anthropic): retried, then answered', () => {
  it('anthropic', async () => {
    const overloaded = statusFault('anthropic', 529, 'Overloaded', { type: 'overloaded_error' });
    backends.front.anthropic.enqueue(overloaded, overloaded);
    const response = await bounded(gatewayFor(backends).createCompletion({ model: MODELS.anthropic, messages: hello }));
    expect(response.choices[0]!.message.content).toBe(greeting('anthropic'));
    expect(
      response.switchyard.attempts.map((attempt) => `${attempt.status ?? attempt.outcome}:${attempt.outcome}`),
    ).toEqual(['529:overloaded_error', '529:overloaded_error', 'ok:ok']);
  });

  it('anthropic: still overloaded after every retry → ProviderError 529, retryable', async () => {
    const overloaded = statusFault('anthropic', 529, 'Overloaded', { type: 'overloaded_error' });
    backends.front.anthropic.enqueue(overloaded, overloaded, overloaded);
    const error = await rejection(gatewayFor(backends).createCompletion({ model: MODELS.anthropic, messages: hello }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 529, code: 'overloaded_error', retryable: true });
    expect(error.attempts).toHaveLength(3);
  });
});

describe('request timeout: the hung request is abandoned (its socket closed), retried, then a 408', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    const front = backends.front[provider];
    front.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const gateway = gatewayFor(backends, { timeoutMs: 250, retry: { maxRetries: 1, initialDelayMs: 5 } });
    const error = await rejection(gateway.createCompletion({ model: MODELS[provider], messages: hello }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 408, type: 'timeout_error', code: 'timeout', retryable: true, provider });
    expect(outcomes(error)).toEqual([`${provider}:408`, `${provider}:408`]);
    expect(front.requests).toHaveLength(2);
    // Both hung requests were given up by the client: nothing left attached to a connection.
    expect(await front.settled()).toBe(0);
  });

  it.each(PROVIDERS)('%s: a hang then an answer', async (provider) => {
    backends.front[provider].enqueue({ kind: 'hang' });
    const gateway = gatewayFor(backends, { timeoutMs: 250 });
    const response = await bounded(gateway.createCompletion({ model: MODELS[provider], messages: hello }));
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['timeout', 'ok']);
  });
});

describe('connection reset: retried, then answered (plain and stream)', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    const front = backends.front[provider];
    front.enqueue({ kind: 'reset' });
    const gateway = gatewayFor(backends);
    const response = await bounded(gateway.createCompletion({ model: MODELS[provider], messages: hello }));
    expect(response.choices[0]!.message.content).toBe(greeting(provider));
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['connection_error', 'ok']);

    // A stream whose connection dropped before its first byte is retried like any call.
    front.enqueue({ kind: 'reset' });
    const stream = await bounded(gateway.createCompletion({ model: MODELS[provider], messages: hello, stream: true }));
    const { chunks, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(text(chunks)).toBe(greeting(provider));
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['connection_error', 'ok']);
  });
});

describe(
  'stream truncated mid-way (connection dropped after some text): StreamInterruptedError, partial text, not ' +
    'retried',
  () => {
    it.each(PROVIDERS)('%s', async (provider) => {
      const front = backends.front[provider];
      front.enqueue({ kind: 'truncate', events: EVENTS_UNTIL_HELLO_FROM[provider] });
      const gateway = gatewayFor(backends);
      const stream = await bounded(
        gateway.createCompletion({ model: MODELS[provider], messages: hello, stream: true }),
      );
      const { chunks, error } = await drain(stream);
      expect(text(chunks)).toBe('Hello from');
      expect(error).toBeInstanceOf(StreamInterruptedError);
      expect(error).toMatchObject({ provider, retryable: false, status: 502 });
      expect(error.attempts).toEqual([expect.objectContaining({ provider, outcome: 'ok' })]);
      expect(front.requests).toHaveLength(1);
      // The record keeps the partial answer, as an error.
      await gateway.flush();
      const [record] = (await gateway.calls.list()).data;
      expect(record).toMatchObject({
        stream: true,
        status: 'error',
        output: { content: 'Hello from' },
        error: { type: 'api_error', status: 502 },
      });
    });
  },
);

describe('the same cut with a fallback: the answer goes on there, spliced in (stream failover)', () => {
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
    setTimeout(() => controller.abort(), 50);
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
    setTimeout(() => controller.abort(), 100);
    const { chunks } = await drain(stream);
    expect(text(chunks)).toBe('Hello from');
    expect(await front.settled()).toBe(0);
  });
});

describe('malformed body from the provider (200, not JSON): retried; if it persists, a typed 502', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    const front = backends.front[provider];
    front.enqueue({ kind: 'malformed' });
    const gateway = gatewayFor(backends);
    const response = await bounded(gateway.createCompletion({ model: MODELS[provider], messages: hello }));
    expect(response.choices[0]!.message.content).toBe(greeting(provider));
    expect(response.switchyard.attempts).toEqual([
      expect.objectContaining({ provider, status: 502 }),
      expect.objectContaining({ provider, outcome: 'ok' }),
    ]);

    front.enqueue({ kind: 'malformed' }, { kind: 'malformed' }, { kind: 'malformed' });
    const error = await rejection(gateway.createCompletion({ model: MODELS[provider], messages: hello }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 502, type: 'api_error', provider, retryable: true });
    expect(outcomes(error)).toEqual([`${provider}:502`, `${provider}:502`, `${provider}:502`]);
  });

  it.each(PROVIDERS)(
    '%s: a stream whose first event is not JSON is retried like a failed request',
    async (provider) => {
      const front = backends.front[provider];
      const body =
        provider === 'google'
          ? 'data: {"candidates": [\r\n\r\n'
          : provider === 'anthropic'
            ? 'event: message_start\ndata: {"type": "mess\n\n'
            : 'data: {"id": "chatcmpl-\n\n';
      front.enqueue({ kind: 'malformed', contentType: 'text/event-stream', body });
      const stream = await bounded(
        gatewayFor(backends).createCompletion({ model: MODELS[provider], messages: hello, stream: true }),
      );
      const { chunks, error } = await drain(stream);
      expect(error).toBeUndefined();
      expect(text(chunks)).toBe(greeting(provider));
      expect(stream.switchyard.attempts).toHaveLength(2);
      expect(stream.switchyard.attempts[0]).toMatchObject({ provider, status: 502 });
    },
  );

  // Regression (fixed; was a bug in src/providers/openai.ts, src/providers/anthropic.ts): a 200 whose body cannot be
  // parsed is reported as
  // code "connection_error" with the message "Could not reach <provider> … at <url>", though the provider was
  // reached and answered. The Gemini adapter gets it right: code "invalid_response", "sent a response that could
  // not be read". Callers and dashboards grouping by code see a network problem where there is none.
  it.each(['openai', 'anthropic'] as const)(
    '%s: reports an unreadable 200 as invalid_response, not as a connection error',
    async (provider) => {
      backends.front[provider].enqueue({ kind: 'malformed' });
      const error = await rejection(
        gatewayFor(backends).createCompletion(
          { model: MODELS[provider], messages: hello },
          { retry: { maxRetries: 0 } },
        ),
      );
      expect(error.message).not.toMatch(/could not reach/i);
      expect(error.code).toBe('invalid_response');
    },
  );

  it('google: reports an unreadable 200 as invalid_response', async () => {
    backends.front.google.enqueue({ kind: 'malformed' });
    const error = await rejection(
      gatewayFor(backends).createCompletion({ model: MODELS.google, messages: hello }, { retry: { maxRetries: 0 } }),
    );
    expect(error).toMatchObject({ code: 'invalid_response', status: 502 });
  });
});

describe(
  'stream ended cleanly before the answer was complete (no finish, no [DONE]): must not pass as a complete ' + 'answer',
  () => {
    it('anthropic: StreamInterruptedError stream_truncated', async () => {
      backends.front.anthropic.enqueue({ kind: 'end', events: EVENTS_UNTIL_HELLO_FROM.anthropic });
      const stream = await bounded(
        gatewayFor(backends).createCompletion({ model: MODELS.anthropic, messages: hello, stream: true }),
      );
      const { chunks, error } = await drain(stream);
      expect(text(chunks)).toBe('Hello from');
      expect(error).toBeInstanceOf(StreamInterruptedError);
      expect(error.code).toBe('stream_truncated');
    });

    // Regression (fixed; was a bug in the OpenAI adapter's #convertChunks): when an OpenAI-family stream ends without
    // `data: [DONE]` and
    // without a finish_reason, the adapter ends the caller's stream quietly: the partial answer looks complete and
    // its call record says status "ok". Anthropic raises stream_truncated in the same situation.
    it('openai: a stream cut off without [DONE] ends in an error', async () => {
      backends.front.openai.enqueue({ kind: 'end', events: EVENTS_UNTIL_HELLO_FROM.openai });
      const stream = await bounded(
        gatewayFor(backends).createCompletion({ model: MODELS.openai, messages: hello, stream: true }),
      );
      const { chunks, error } = await drain(stream);
      expect(text(chunks)).toBe('Hello from');
      expect(error).toBeInstanceOf(StreamInterruptedError);
    });

    // Regression (fixed; was a bug in Gemini's StreamConverter.finish): a Gemini stream that ends
    // without a finishReason
    // gets a synthesized finish_reason "stop", so a cut-off answer is delivered as a complete one (record: "ok").
    it('google: a stream cut off without a finishReason ends in an error, not in finish_reason "stop"', async () => {
      backends.front.google.enqueue({ kind: 'end', events: EVENTS_UNTIL_HELLO_FROM.google });
      const stream = await bounded(
        gatewayFor(backends).createCompletion({ model: MODELS.google, messages: hello, stream: true }),
      );
      const { chunks, error } = await drain(stream);
      expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(false);
      expect(error).toBeInstanceOf(StreamInterruptedError);
    });
  },
);

describe('a stream aborted by the caller must not look finished', () => {
  it.each(['anthropic', 'google'] as const)(
    '%s: the iterator throws 499 aborted, the record says error',
    async (provider) => {
      backends.front[provider].enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM[provider] });
      const controller = new AbortController();
      const gateway = gatewayFor(backends);
      const stream = await bounded(
        gateway.createCompletion(
          { model: MODELS[provider], messages: hello, stream: true },
          { signal: controller.signal },
        ),
      );
      setTimeout(() => controller.abort(), 100);
      const { error } = await drain(stream);
      expect(error).toBeInstanceOf(StreamInterruptedError);
      expect(error).toMatchObject({ status: 499, code: 'aborted' });
      await gateway.flush();
      expect((await gateway.calls.list()).data[0]).toMatchObject({ status: 'error', error: { code: 'aborted' } });
    },
  );

  // Regression (fixed; was a bug in the OpenAI adapter's #convertChunks): the openai SDK ends a stream quietly when
  // its signal aborts, and
  // the adapter does not check `signal.aborted` afterwards (the Anthropic adapter does). The caller's loop ends as
  // if the answer were complete, and the call record says status "ok".
  it('openai: the iterator throws 499 aborted', async () => {
    backends.front.openai.enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM.openai });
    const controller = new AbortController();
    const stream: CompletionStream = await bounded(
      gatewayFor(backends).createCompletion(
        { model: MODELS.openai, messages: hello, stream: true },
        { signal: controller.signal },
      ),
    );
    setTimeout(() => controller.abort(), 100);
    const { error } = await drain(stream);
    expect(error).toMatchObject({ status: 499, code: 'aborted' });
  });
});

describe('invalid response_format schema: a 400 before any provider is called', () => {
  const schemas = [
    { type: 'object', properties: { answer: { type: 'no-such-type' } } },
    { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' },
    { $async: true, type: 'object' },
    { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
    { type: 'object', properties: { a: { $ref: 'https://example.com/remote.json' } } },
    { type: 'object', required: 'answer' },
  ];
  it.each(PROVIDERS)('%s', async (provider) => {
    const gateway = gatewayFor(backends);
    for (const schema of schemas) {
      const error = await rejection(
        gateway.createCompletion({
          model: MODELS[provider],
          messages: hello,
          response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
        }),
      );
      expect(error, JSON.stringify(schema)).toBeInstanceOf(InvalidRequestError);
      expect(error).toMatchObject({ status: 400, code: 'invalid_schema' });
      expect(error.param).toMatch(/^response_format\.json_schema\.schema/);
    }
    expect(backends.front[provider].requests).toHaveLength(0);
  });

  const rejections: Record<ProviderName, Fault> = {
    // Each as the provider structures it: OpenAI's param and code, the field path opening Anthropic's message, and
    // Google's BadRequest field violation.
    openai: statusFault(
      'openai',
      400,
      "Invalid schema for response_format 'answer': In context=(), 'format' is not permitted.",
      { type: 'invalid_request_error', param: 'response_format', code: 'invalid_json_schema' },
    ),
    anthropic: statusFault('anthropic', 400, 'output_config.format.schema: The keyword "format" is not supported.', {
      type: 'invalid_request_error',
    }),
    google: statusFault(
      'google',
      400,
      'Invalid JSON payload received. Unknown name "format" at ' +
        'generation_config.response_json_schema.properties[0].value',
      {
        googleStatus: 'INVALID_ARGUMENT',
        field: 'generation_config.response_json_schema.properties[0].value',
      },
    ),
  };
  it.each(PROVIDERS)(
    '%s: a schema the provider rejects natively goes into the prompt instead, with a warning',
    async (provider) => {
      const json = '{"answer":"hello"}';
      if (provider === 'openai') backends.openai.enqueue({ content: json });
      if (provider === 'anthropic') backends.anthropic.enqueue({ content: [{ type: 'text', text: json }] });
      if (provider === 'google') backends.google.enqueue({ text: json });
      backends.front[provider].enqueue(rejections[provider]);
      const response = await bounded(
        gatewayFor(backends).createCompletion({
          model: MODELS[provider],
          messages: hello,
          response_format: {
            type: 'json_schema',
            json_schema: {
              name: 'answer',
              schema: {
                type: 'object',
                properties: { answer: { type: 'string', format: 'hostname' } },
                required: ['answer'],
              },
            },
          },
        }),
      );
      expect(response.choices[0]!.message.parsed).toEqual({ answer: 'hello' });
      expect(response.switchyard.warnings).toContainEqual(
        expect.objectContaining({ code: 'converted_parameter', param: 'response_format' }),
      );
      expect(backends.front[provider].requests).toHaveLength(2);
    },
  );
});

describe('bad provider key: AuthenticationError 401, not retried, the key not repeated', () => {
  const faults: Record<ProviderName, Fault> = {
    openai: statusFault(
      'openai',
      401,
      `Incorrect API key provided: ${KEYS.openai}. You can find your API key at ` +
        `https://platform.openai.com/account/api-keys.`,
      { type: 'invalid_request_error', code: 'invalid_api_key' },
    ),
    anthropic: statusFault('anthropic', 401, `invalid x-api-key: ${KEYS.anthropic}`, { type: 'authentication_error' }),
    google: statusFault('google', 400, `API key not valid. Please pass a valid API key. (${KEYS.google})`, {
      googleStatus: 'INVALID_ARGUMENT',
      reason: 'API_KEY_INVALID',
    }),
  };
  it.each(PROVIDERS)('%s', async (provider) => {
    backends.front[provider].enqueue(faults[provider]);
    const error = await rejection(
      gatewayFor(backends).createCompletion({
        model: MODELS[provider],
        messages: hello,
        fallbacks: [MODELS[FALLBACK[provider]]],
      }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error', provider, retryable: false });
    // A 401 ends the call: neither retried nor handed to the fallback model.
    expect(outcomes(error)).toEqual([`${provider}:401`]);
    expect(backends.front[provider].requests).toHaveLength(1);
    expect(backends.front[FALLBACK[provider]].requests).toHaveLength(0);
    expect(`${error.message} ${JSON.stringify(error)} ${JSON.stringify(error.attempts)}`).not.toContain(KEYS[provider]);
  });
});

describe('unknown bare id: 404 before any request; a model the provider does not know: 404, not retried', () => {
  const unknown: Record<ProviderName, string> = {
    openai: 'gpt-4o-2024-11-21',
    anthropic: 'claude-haiku-4-5-20251002',
    google: 'gemini-2.5-flesh',
  };
  const upstream404: Record<ProviderName, Fault> = {
    openai: statusFault(
      'openai',
      404,
      `The model \`${MODELS.openai}\` does not exist or you do not have access to it.`,
      { type: 'invalid_request_error', code: 'model_not_found' },
    ),
    anthropic: statusFault('anthropic', 404, `model: ${MODELS.anthropic}`, { type: 'not_found_error' }),
    google: statusFault(
      'google',
      404,
      `models/${MODELS.google} is not found for API version v1beta, or is not supported for generateContent.`,
      { googleStatus: 'NOT_FOUND' },
    ),
  };
  it.each(PROVIDERS)('%s', async (provider) => {
    const gateway = gatewayFor(backends);
    for (const model of [unknown[provider], `my-agent/${unknown[provider]}`]) {
      const error = await rejection(gateway.createCompletion({ model, messages: hello }));
      expect(error).toBeInstanceOf(ModelNotFoundError);
      expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
      expect(error.suggestions).toContain(MODELS[provider]);
    }
    expect(backends.front[provider].requests).toHaveLength(0);

    backends.front[provider].enqueue(upstream404[provider]);
    const error = await rejection(gateway.createCompletion({ model: MODELS[provider], messages: hello }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 404, provider, retryable: false });
    expect(outcomes(error)).toEqual([`${provider}:404`]);

    // Named with its provider, an id outside the catalog is sent as written: the provider's 404 comes back.
    backends.front[provider].enqueue(upstream404[provider]);
    const named = await rejection(
      gateway.createCompletion({ model: `${provider}/${unknown[provider]}`, messages: hello }),
    );
    expect(named).toMatchObject({ status: 404, provider, retryable: false });
    expect(backends.front[provider].requests).toHaveLength(2);
  });
});

describe(
  'provider without credentials: MissingCredentialsError naming the variable; a fallback with credentials ' + 'answers',
  () => {
    const variable: Record<ProviderName, string> = {
      openai: 'OPENAI_API_KEY',
      anthropic: 'ANTHROPIC_API_KEY',
      google: 'GEMINI_API_KEY',
    };
    it.each(PROVIDERS)('%s', async (provider) => {
      const { [provider]: _left, ...others } = providerSettings(backends);
      const withoutKey = gatewayFor(backends, { providers: others });
      const error = await rejection(withoutKey.createCompletion({ model: MODELS[provider], messages: hello }));
      expect(error).toBeInstanceOf(MissingCredentialsError);
      expect(error).toMatchObject({ status: 503, code: 'provider_not_configured', type: 'server_error' });
      expect(error.message).toContain(variable[provider]);
      expect(error.attempts).toEqual([expect.objectContaining({ provider, outcome: 'missing_credentials' })]);

      const other = FALLBACK[provider];
      const response = await bounded(
        withoutKey.createCompletion({ model: MODELS[provider], messages: hello, fallbacks: [MODELS[other]] }),
      );
      expect(response.switchyard.provider).toBe(other);
      expect(response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`)).toEqual([
        `${provider}:missing_credentials`,
        `${other}:ok`,
      ]);
      expect(backends.front[provider].requests).toHaveLength(0);
    });
  },
);

describe('every error above is a SwitchyardError with an OpenAI error body', () => {
  it('toJSON of a provider failure', async () => {
    backends.front.openai.enqueue(
      statusFault('openai', 500, 'boom'),
      statusFault('openai', 500, 'boom'),
      statusFault('openai', 500, 'boom'),
    );
    const error = await rejection(gatewayFor(backends).createCompletion({ model: MODELS.openai, messages: hello }));
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error.toJSON()).toEqual({
      error: { message: expect.stringContaining('answered 500'), type: 'api_error', param: null, code: null },
    });
  });
});
