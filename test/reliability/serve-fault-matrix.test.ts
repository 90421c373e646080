import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from './faulty-server.ts';
import {
  type Backends,
  bounded,
  errorBody,
  guardUnhandledRejections,
  MODELS,
  PROVIDERS,
  type ProviderName,
  providerSettings,
  rejection,
  startBackends,
} from './harness.ts';
import {
  isOpenAIErrorBody,
  readSSE,
  readTable,
  type ServeRig,
  serveGatewayOptions,
  startServeRig,
} from './serve-harness.ts';

/**
 * The fault matrix through `switchyard serve`: each provider fault of fault-matrix.test.ts, injected in front of
 * the fake providers, seen by an HTTP client of the server: the real `openai` SDK (maxRetries: 0) and raw fetch
 * for the bytes of the error bodies and of the SSE streams. Every request ends in a success or in an OpenAI error
 * body with the library's status; answers from the gateway carry `x-switchyard-call-id`, and every such id is a
 * record in the SQLite file afterwards. Guards after each test: no unhandled rejection, every request settled
 * within a bound, nothing left attached to a connection on the fake providers' side (a request or stream the
 * server forgot to close upstream), and no "unexpected error" in the server's log.
 */

let backends: Backends;
let rig: ServeRig;
const callIds = new Set<string>();
const rows: string[] = [];
beforeAll(async () => {
  backends = await startBackends();
  rig = await startServeRig(backends);
});
afterAll(async () => {
  await rig?.stop();
  await backends?.close();
  console.log(
    `serve fault matrix: ${rows.length} rows (${[...new Set(rows)].length} distinct), ${callIds.size} call ids ` +
      `checked against SQLite`,
  );
});
guardUnhandledRejections();
afterEach(async () => {
  for (const provider of PROVIDERS) {
    const front = backends.front[provider];
    expect(await front.settled(), `${provider}: responses still attached to a connection after the test`).toBe(0);
    front.reset();
  }
  expect(
    rig.logs.filter((line) => line.level !== 'info'),
    'unexpected errors in the server log',
  ).toEqual([]);
});

const hello = [{ role: 'user' as const, content: 'Say hello' }];
const greeting = (provider: ProviderName) => `Hello from fake ${MODELS[provider]}`;
const EVENTS_UNTIL_HELLO_FROM: Record<ProviderName, number> = { openai: 3, anthropic: 5, google: 2 };
const CALL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function statusFault(
  provider: ProviderName,
  status: number,
  message: string,
  extra: Parameters<typeof errorBody>[3] = {},
  headers: Record<string, string> = {},
): Fault {
  return { kind: 'status', status, body: errorBody(provider, status, message, extra), headers };
}

/** The call id of a response, remembered for the SQLite check at the end. */
function callIdOf(headers: Headers | undefined, server: ServeRig = rig): string {
  const id = headers?.get('x-switchyard-call-id') ?? '';
  expect(id, 'x-switchyard-call-id').toMatch(CALL_ID);
  if (server === rig) callIds.add(id);
  return id;
}

interface Expected {
  status: number;
  type?: string;
  code?: string | null;
  param?: string | null;
  /** The SDK class the status maps to. */
  sdk: abstract new (
    ...args: never[]
  ) => APIError;
  /** Whether the gateway ran the call (then the answer carries its call id); false for the server's own refusals. */
  callId?: boolean;
}

/**
 * One error row, both ways: raw fetch (exact status, exact OpenAI error body, call id) with `faults` enqueued, then
 * the SDK with the same faults again (its typed error class, status, code). Returns the raw body's `error`.
 */
async function errorRow(
  name: string,
  request: Record<string, unknown>,
  expected: Expected,
  enqueue: () => void = () => undefined,
  server: ServeRig = rig,
): Promise<{ error: Record<string, any>; sdk: APIError }> {
  rows.push(name);
  enqueue();
  const response = await bounded(server.post('/v1/chat/completions', request), 15_000, name);
  const body = (await bounded(response.json(), 5_000, name)) as { error: Record<string, any> };
  expect(response.status, name).toBe(expected.status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(isOpenAIErrorBody(body), `${name}: ${JSON.stringify(body)}`).toBe(true);
  const fields = { type: expected.type, code: expected.code, param: expected.param };
  for (const [field, value] of Object.entries(fields))
    if (value !== undefined) expect(body.error[field], `${name}: error.${field}`).toBe(value);
  if (expected.callId === false) expect(response.headers.get('x-switchyard-call-id')).toBeNull();
  else callIdOf(response.headers, server);

  enqueue();
  const sdk = (await rejection(server.openai().chat.completions.create(request as never), 15_000)) as APIError;
  expect(sdk, name).toBeInstanceOf(expected.sdk);
  expect(sdk.status).toBe(expected.status);
  if (expected.code !== undefined) expect(sdk.code).toBe(expected.code);
  if (expected.callId !== false) callIdOf(sdk.headers, server);
  return { error: body.error, sdk };
}

describe('429 with retry-after: the server waits, retries, and answers 200', () => {
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
    rows.push('429 retry-after');
    const front = backends.front[provider];
    front.enqueue(faults[provider]);
    const { data, response } = await bounded(
      rig.openai().chat.completions.create({ model: MODELS[provider], messages: hello }).withResponse(),
    );
    expect(response.status).toBe(200);
    expect(data.choices[0]!.message.content).toBe(greeting(provider));
    expect(callIdOf(response.headers)).toBe(
      (data as unknown as { switchyard: { call_id: string } }).switchyard.call_id,
    );
    expect(front.requests.map((request) => request.fault)).toEqual(['status', 'pass']);
    expect(front.requests[1]!.at - front.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it.each(PROVIDERS)(
    '%s: still limited after every retry → 429 rate_limit_error (RateLimitError)',
    async (provider) => {
      const limited = statusFault(provider, 429, 'Rate limit reached', {
        type: 'rate_limit_error',
        googleStatus: 'RESOURCE_EXHAUSTED',
      });
      await errorRow(
        '429 exhausted',
        { model: MODELS[provider], messages: hello },
        { status: 429, type: 'rate_limit_error', sdk: OpenAI.RateLimitError },
        () => backends.front[provider].enqueue(limited, limited, limited),
      );
    },
  );
});

describe('5xx after every retry: the provider status and an OpenAI error body naming provider and model', () => {
  it.each(PROVIDERS)('%s: 500 → 500 api_error (InternalServerError)', async (provider) => {
    const fault = statusFault(provider, 500, 'The server had an error while processing your request.', {
      googleStatus: 'INTERNAL',
    });
    const { error } = await errorRow(
      '500 exhausted',
      { model: MODELS[provider], messages: hello },
      { status: 500, type: 'api_error', sdk: OpenAI.InternalServerError },
      () => backends.front[provider].enqueue(fault, fault, fault),
    );
    expect(error.message).toContain(`${provider} (${MODELS[provider]}) answered 500`);
  });

  it.each(PROVIDERS)(
    '%s: 503 → 503, plain and streamed (an error before the first chunk is an ordinary JSON answer, not SSE)',
    async (provider) => {
      const fault = statusFault(provider, 503, 'Service unavailable', { googleStatus: 'UNAVAILABLE' });
      const enqueue = () => backends.front[provider].enqueue(fault, fault, fault);
      await errorRow(
        '503 exhausted',
        { model: MODELS[provider], messages: hello },
        { status: 503, type: 'api_error', sdk: OpenAI.InternalServerError },
        enqueue,
      );
      await errorRow(
        '503 exhausted, stream',
        { model: MODELS[provider], messages: hello, stream: true },
        { status: 503, type: 'api_error', sdk: OpenAI.InternalServerError },
        enqueue,
      );
    },
  );

  it('anthropic: 529 overloaded → 529 overloaded_error', async () => {
    const overloaded = statusFault('anthropic', 529, 'Overloaded', { type: 'overloaded_error' });
    const { error } = await errorRow(
      '529 exhausted',
      { model: MODELS.anthropic, messages: hello },
      { status: 529, code: 'overloaded_error', sdk: OpenAI.InternalServerError },
      () => backends.front.anthropic.enqueue(overloaded, overloaded, overloaded),
    );
    expect(error.message).toContain(MODELS.anthropic);
  });

  it('anthropic: 529 then an answer → 200', async () => {
    rows.push('529 then ok');
    const overloaded = statusFault('anthropic', 529, 'Overloaded', { type: 'overloaded_error' });
    backends.front.anthropic.enqueue(overloaded);
    const { data, response } = await bounded(
      rig.openai().chat.completions.create({ model: MODELS.anthropic, messages: hello }).withResponse(),
    );
    expect(data.choices[0]!.message.content).toBe(greeting('anthropic'));
    callIdOf(response.headers);
  });
});

describe('provider timeout: 408 timeout_error, and the hung upstream requests are closed', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    const slow = await startServeRig(backends, {
      gateway: serveGatewayOptions(backends, { timeoutMs: 250, retry: { maxRetries: 1, initialDelayMs: 5 } }),
    });
    try {
      const { error } = await errorRow(
        'provider timeout',
        { model: MODELS[provider], messages: hello },
        { status: 408, type: 'timeout_error', code: 'timeout', sdk: OpenAI.APIError },
        () => backends.front[provider].enqueue({ kind: 'hang' }, { kind: 'hang' }),
        slow,
      );
      expect(error.message).toContain(MODELS[provider]);
      expect(backends.front[provider].requests).toHaveLength(4);
      expect(await backends.front[provider].settled()).toBe(0);
    } finally {
      await slow.stop();
    }
  });
});

describe('connection reset: retried, then 200 (plain and stream); when it persists, a typed 5xx', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    rows.push('connection reset then ok');
    const front = backends.front[provider];
    front.enqueue({ kind: 'reset' });
    const { data, response } = await bounded(
      rig.openai().chat.completions.create({ model: MODELS[provider], messages: hello }).withResponse(),
    );
    expect(data.choices[0]!.message.content).toBe(greeting(provider));
    callIdOf(response.headers);

    front.enqueue({ kind: 'reset' });
    const streamed = await bounded(
      rig.post('/v1/chat/completions', { model: MODELS[provider], messages: hello, stream: true }),
    );
    expect(streamed.status).toBe(200);
    callIdOf(streamed.headers);
    const { data: events } = await readSSE(streamed);
    expect(events.at(-1)).toBe('[DONE]');
    expect(
      events
        .slice(0, -1)
        .map((event) => JSON.parse(event).choices[0]?.delta.content ?? '')
        .join(''),
    ).toBe(greeting(provider));

    const { error } = await errorRow(
      'connection reset exhausted',
      { model: MODELS[provider], messages: hello },
      { status: 502, code: 'connection_error', sdk: OpenAI.InternalServerError },
      () => front.enqueue({ kind: 'reset' }, { kind: 'reset' }, { kind: 'reset' }),
    );
    expect(error.message).toContain(MODELS[provider]);
  });
});

describe('stream truncated mid-way: the text, then data: {"error":…}, then the end; never [DONE]', () => {
  it.each(PROVIDERS)('%s: connection dropped after some text', async (provider) => {
    rows.push('stream truncated');
    backends.front[provider].enqueue({ kind: 'truncate', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    const response = await bounded(
      rig.post('/v1/chat/completions', { model: MODELS[provider], messages: hello, stream: true }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    callIdOf(response.headers);
    const { data } = await readSSE(response);
    expect(data).not.toContain('[DONE]');
    const last = JSON.parse(data.at(-1)!);
    expect(isOpenAIErrorBody(last), JSON.stringify(last)).toBe(true);
    expect(last.error).toMatchObject({ type: 'api_error' });
    const text = data
      .slice(0, -1)
      .map((event) => JSON.parse(event).choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('Hello from');

    // The SDK turns that event into an APIError thrown by the iterator, after the partial text.
    backends.front[provider].enqueue({ kind: 'truncate', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    const stream = await bounded(
      rig.openai().chat.completions.create({ model: MODELS[provider], messages: hello, stream: true }),
    );
    let received = '';
    const thrown = await rejection(
      (async () => {
        for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
      })(),
    );
    expect(received).toBe('Hello from');
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as APIError).message).toMatch(/broke off/);
  });

  it.each(PROVIDERS)('%s: upstream ended cleanly but early (no finish, no [DONE])', async (provider) => {
    rows.push('stream ended early');
    backends.front[provider].enqueue({ kind: 'end', events: EVENTS_UNTIL_HELLO_FROM[provider] });
    const response = await bounded(
      rig.post('/v1/chat/completions', { model: MODELS[provider], messages: hello, stream: true }),
    );
    callIdOf(response.headers);
    const { data } = await readSSE(response);
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1)!).error.code).toBe('stream_truncated');
  });
});

describe('malformed provider JSON: retried; when it persists, 502 invalid_response', () => {
  it.each(PROVIDERS)('%s', async (provider) => {
    rows.push('malformed then ok');
    backends.front[provider].enqueue({ kind: 'malformed' });
    const { data } = await bounded(
      rig.openai().chat.completions.create({ model: MODELS[provider], messages: hello }).withResponse(),
    );
    expect(data.choices[0]!.message.content).toBe(greeting(provider));
    await errorRow(
      'malformed exhausted',
      { model: MODELS[provider], messages: hello },
      { status: 502, code: 'invalid_response', sdk: OpenAI.InternalServerError },
      () => backends.front[provider].enqueue({ kind: 'malformed' }, { kind: 'malformed' }, { kind: 'malformed' }),
    );
  });
});

describe('the request itself is wrong: 4xx before any provider is called', () => {
  it.each(PROVIDERS)(
    '%s: invalid response_format schema → 400 invalid_schema with param (BadRequestError)',
    async (provider) => {
      for (const schema of [
        { type: 'object', properties: { answer: { type: 'no-such-type' } } },
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      ]) {
        const { sdk } = await errorRow(
          'invalid schema',
          {
            model: MODELS[provider],
            messages: hello,
            response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
          },
          { status: 400, type: 'invalid_request_error', code: 'invalid_schema', sdk: OpenAI.BadRequestError },
        );
        expect(sdk.param).toMatch(/^response_format\.json_schema\.schema/);
      }
      expect(backends.front[provider].requests).toHaveLength(0);
    },
  );

  it('unknown model → 404 model_not_found with suggestions (NotFoundError)', async () => {
    const { error } = await errorRow(
      'unknown model',
      { model: 'gpt-4o-2024-11-21', messages: hello },
      { status: 404, code: 'model_not_found', param: 'model', sdk: OpenAI.NotFoundError },
    );
    expect(error.message).toContain(MODELS.openai);
    expect(backends.front.openai.requests).toHaveLength(0);
  });

  it('a bad client key → 401 invalid_api_key (AuthenticationError), no call made', async () => {
    await errorRow(
      'bad client key',
      { model: MODELS.openai, messages: hello },
      {
        status: 401,
        type: 'authentication_error',
        code: 'invalid_api_key',
        sdk: OpenAI.AuthenticationError,
        callId: false,
      },
      undefined,
      {
        ...rig,
        post: (path, body) => rig.post(path, body, { key: 'sy-not-a-key-of-this-server' }),
        openai: () => rig.openai('sy-not-a-key-of-this-server'),
      },
    );
    const missing = await bounded(
      rig.post('/v1/chat/completions', { model: MODELS.openai, messages: hello }, { key: null }),
    );
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(backends.front.openai.requests).toHaveLength(0);
  });

  it('a revoked key → 401 invalid_api_key saying it was revoked, from the next request on', async () => {
    const { key, info } = await rig.server.keys.create('revoked');
    const before = await bounded(
      rig.openai(key).chat.completions.create({ model: MODELS.openai, messages: hello }).withResponse(),
    );
    callIdOf(before.response.headers);
    await rig.server.keys.revoke(info.id);
    const { error } = await errorRow(
      'revoked key',
      { model: MODELS.openai, messages: hello },
      {
        status: 401,
        type: 'authentication_error',
        code: 'invalid_api_key',
        sdk: OpenAI.AuthenticationError,
        callId: false,
      },
      undefined,
      { ...rig, post: (path, body) => rig.post(path, body, { key }), openai: () => rig.openai(key) },
    );
    expect(error.message).toContain('revoked');
    expect(backends.front.openai.requests).toHaveLength(1);
  });

  const variable: Record<ProviderName, string> = {
    openai: 'OPENAI_API_KEY',
    anthropic: 'ANTHROPIC_API_KEY',
    google: 'GEMINI_API_KEY',
  };
  it.each(PROVIDERS)('%s without credentials → 503 provider_not_configured naming the variable', async (provider) => {
    const { [provider]: _left, ...others } = providerSettings(backends);
    const partial = await startServeRig(backends, { gateway: serveGatewayOptions(backends, { providers: others }) });
    try {
      const { error } = await errorRow(
        'missing credentials',
        { model: MODELS[provider], messages: hello },
        { status: 503, type: 'server_error', code: 'provider_not_configured', sdk: OpenAI.InternalServerError },
        undefined,
        partial,
      );
      expect(error.message).toContain(variable[provider]);
      expect(backends.front[provider].requests).toHaveLength(0);
    } finally {
      await partial.stop();
    }
  });
});

describe('client leaves: the server closes its upstream connection', () => {
  it.each(PROVIDERS)(
    '%s: abort in the middle of a stream (SDK) → upstream closed, call recorded as aborted',
    async (provider) => {
      rows.push('client abort mid-stream');
      const front = backends.front[provider];
      front.enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM[provider] });
      const controller = new AbortController();
      const { data: stream, response } = await bounded(
        rig
          .openai()
          .chat.completions.create(
            { model: MODELS[provider], messages: hello, stream: true, metadata: { agent_id: `leaver-${provider}` } },
            { signal: controller.signal },
          )
          .withResponse(),
      );
      const callId = callIdOf(response.headers);
      await bounded(
        (async () => {
          for await (const chunk of stream) {
            if (chunk.choices[0]?.delta.content) break;
          }
        })(),
      );
      controller.abort();
      // The stalled upstream response ends only when the server closes its connection to the provider.
      expect(await front.settled(5_000)).toBe(0);
      await expect
        .poll(() => rig.logs.find((line) => line.msg === 'request' && line.call_id === callId), { timeout: 5_000 })
        .toMatchObject({ status: 200, aborted: true });
      await rig.server.gateway.flush();
      const [record] = (await rig.server.gateway.calls.list({ agent_id: `leaver-${provider}` })).data;
      expect(record).toMatchObject({ id: callId, status: 'error', stream: true });
    },
  );

  it.each(PROVIDERS)(
    '%s: abort while the provider has not answered (raw fetch) → upstream closed, logged 499',
    async (provider) => {
      rows.push('client abort before the answer');
      const front = backends.front[provider];
      front.enqueue({ kind: 'hang' });
      const controller = new AbortController();
      const pending = rig.post(
        '/v1/chat/completions',
        { model: MODELS[provider], messages: hello, metadata: { agent_id: `impatient-${provider}` } },
        { signal: controller.signal },
      );
      await expect.poll(() => front.requests.length, { timeout: 5_000 }).toBe(1);
      controller.abort();
      await expect(bounded(pending)).rejects.toThrow(/abort/i);
      expect(await front.settled(5_000)).toBe(0);
      await expect
        .poll(() => rig.logs.filter((line) => line.msg === 'request' && line.status === 499).length, { timeout: 5_000 })
        .toBeGreaterThan(0);
      await rig.server.gateway.flush();
      const [record] = (await rig.server.gateway.calls.list({ agent_id: `impatient-${provider}` })).data;
      expect(record).toMatchObject({ status: 'error', error: { code: 'aborted' } });
    },
  );
});

describe('afterwards', () => {
  it('every call id the server sent is a record in its SQLite file', async () => {
    await rig.close();
    const stored = new Set(readTable(rig.dataDir, 'calls').map((row) => row.id as string));
    expect(callIds.size).toBeGreaterThan(30);
    expect([...callIds].filter((id) => !stored.has(id))).toEqual([]);
  });
});
