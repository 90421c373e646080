import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompletionChunk, type CompletionResponse, createGateway, type Gateway } from '../../src/index.ts';
import { type Cassette, CassetteMismatchError, createCassette } from '../../src/testing/index.ts';
import {
  type Backends,
  bounded,
  catalog,
  errorBody,
  guardUnhandledRejections,
  KEYS,
  MODELS,
  type ProviderName,
  providerSettings,
  startBackends,
} from './harness.ts';

/**
 * Cassettes end to end: an "agent run" (plain answers, streams, a tool call, a 429 retried, the same question
 * twice, a 401) is recorded against the fake OpenAI, Anthropic and Gemini servers through the real SDKs; the
 * servers are stopped; the run is replayed from the file with no network and no keys, and gives the same results.
 */

guardUnhandledRejections();

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchyard-cassettes-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

const PROVIDERS: ProviderName[] = ['openai', 'anthropic', 'google'];
const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'lookup',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

/**
 * What a caller can observe of a result, without what legitimately changes between runs (timestamps, call ids,
 * durations).
 */
function view(result: CompletionResponse | CompletionChunk[] | { error: unknown }): unknown {
  // Gemini sends no tool-call ids; its adapter draws one per call, so those differ between any two runs.
  return JSON.parse(
    JSON.stringify(rawView(result)).replace(/call_[0-9a-f]{24}/g, 'call_<drawn by the Gemini adapter>'),
  );
}

function rawView(result: CompletionResponse | CompletionChunk[] | { error: unknown }): unknown {
  if (Array.isArray(result)) return result.map(({ created: _created, ...chunk }) => chunk);
  if ('error' in result) {
    const error = result.error as {
      name: string;
      status: number;
      code: string | null;
      message: string;
      attempts: Array<{ provider: string; status?: number; outcome: string }>;
    };
    return {
      name: error.name,
      status: error.status,
      code: error.code,
      message: error.message,
      attempts: error.attempts.map(({ provider, status, outcome }) => ({ provider, status, outcome })),
    };
  }
  const { created: _created, switchyard, ...rest } = result;
  return {
    ...rest,
    switchyard: {
      ...switchyard,
      call_id: undefined,
      attempts: switchyard.attempts.map(({ provider, status, outcome }) => ({ provider, status, outcome })),
    },
  };
}

/**
 * The agent's run. When `backends` is given (recording), the fakes are told what to answer first; when replaying
 * there is nothing to tell, the cassette answers.
 */
async function agentRun(gateway: Gateway, backends?: Backends): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const attempt = async (name: string, work: () => Promise<CompletionResponse | AsyncIterable<CompletionChunk>>) => {
    try {
      const result = await bounded(work(), 10_000, name);
      if (Symbol.asyncIterator in result) {
        const chunks: CompletionChunk[] = [];
        for await (const chunk of result) chunks.push(chunk);
        results[name] = view(chunks);
      } else results[name] = view(result);
    } catch (error) {
      results[name] = view({ error });
    }
  };
  for (const provider of PROVIDERS) {
    const model = MODELS[provider];
    if (backends) {
      if (provider === 'openai')
        backends.openai.enqueue(
          { content: 'Paris, on the Seine.' },
          { content: 'Streaming from OpenAI.' },
          { content: null, tool_calls: [{ id: 'call_1', name: 'lookup', arguments: '{"city":"Paris"}' }] },
        );
      if (provider === 'anthropic') {
        backends.anthropic.enqueue(
          { content: [{ type: 'text', text: 'Paris, on the Seine.' }] },
          { content: [{ type: 'text', text: 'Streaming from Claude.' }] },
          { content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { city: 'Paris' } }] },
        );
      }
      if (provider === 'google') {
        backends.google.enqueue(
          { text: 'Paris, on the Seine.' },
          { text: 'Streaming from Gemini.' },
          { parts: [{ functionCall: { name: 'lookup', args: { city: 'Paris' } } }] },
        );
      }
    }
    await attempt(`${provider} plain`, () =>
      gateway.createCompletion({
        model,
        messages: [{ role: 'user', content: 'Where is the Louvre?' }],
        ...(provider === 'anthropic' ? {} : { temperature: 0.2 }),
      }),
    );
    await attempt(`${provider} stream`, () =>
      gateway.createCompletion({
        model,
        messages: [{ role: 'user', content: 'Stream something' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const question = { role: 'user' as const, content: 'Weather in Paris?' };
    let toolTurn: CompletionResponse | undefined;
    await attempt(
      `${provider} tool call`,
      async () =>
        (toolTurn = await gateway.createCompletion({ model, messages: [question], tools, tool_choice: 'auto' })),
    );
    // The next turn sends the call and its result back: with Gemini, an id the adapter drew during this very run.
    if (backends) {
      if (provider === 'openai') backends.openai.enqueue({ content: 'It is 21 °C.' });
      if (provider === 'anthropic') backends.anthropic.enqueue({ content: [{ type: 'text', text: 'It is 21 °C.' }] });
      if (provider === 'google') backends.google.enqueue({ text: 'It is 21 °C.' });
    }
    await attempt(`${provider} tool result turn`, () => {
      const call = toolTurn!.choices[0]!.message;
      const id = call.tool_calls![0]!.id;
      return gateway.createCompletion({
        model,
        messages: [question, call, { role: 'tool', tool_call_id: id, content: '{"celsius":21}' }],
        tools,
      });
    });

    // A 429 and its retry: two identical requests, answered in the recorded order.
    if (backends) {
      const limited =
        provider === 'google'
          ? errorBody('google', 429, 'Quota exceeded', { googleStatus: 'RESOURCE_EXHAUSTED', retryDelay: '0.01s' })
          : errorBody(provider, 429, 'Rate limited', { type: 'rate_limit_error' });
      backends.front[provider].enqueue({
        kind: 'status',
        status: 429,
        body: limited,
        headers: { 'retry-after-ms': '10' },
      });
    }
    await attempt(`${provider} 429 then answer`, () =>
      gateway.createCompletion({ model, messages: [{ role: 'user', content: 'Are you busy?' }] }),
    );
  }

  // The same question twice, two different answers: replayed in order.
  if (backends) backends.openai.enqueue({ content: 'First answer.' }, { content: 'Second answer.' });
  await attempt('same question, first time', () =>
    gateway.createCompletion({ model: MODELS.openai, messages: [{ role: 'user', content: 'Again?' }] }),
  );
  await attempt('same question, second time', () =>
    gateway.createCompletion({ model: MODELS.openai, messages: [{ role: 'user', content: 'Again?' }] }),
  );

  // A 401 that quotes the key: recorded (redacted), replayed as the same AuthenticationError.
  if (backends) {
    backends.front.anthropic.enqueue({
      kind: 'status',
      status: 401,
      body: errorBody('anthropic', 401, `invalid x-api-key: ${KEYS.anthropic}`, { type: 'authentication_error' }),
    });
  }
  await attempt('anthropic 401', () =>
    gateway.createCompletion({ model: MODELS.anthropic, messages: [{ role: 'user', content: 'Who am I?' }] }),
  );
  return results;
}

function gatewayWith(cassette: Cassette, settings: Parameters<Cassette['providers']>[1] = {}): Gateway {
  return createGateway({
    catalog,
    env: {},
    providers: cassette.providers(['openai', 'anthropic', 'google'], settings),
    retry: { initialDelayMs: 5, maxDelayMs: 50 },
  });
}

describe('cassettes: record a run against the fake providers, replay it without them', () => {
  let recorded: Record<string, unknown>;
  let path: string;

  beforeAll(async () => {
    path = join(directory, 'agent-run.json');
    const backends = await startBackends();
    try {
      const recorder = createCassette({ path, mode: 'auto' });
      expect(recorder.mode).toBe('record');
      recorded = await agentRun(gatewayWith(recorder, providerSettings(backends)), backends);
      await recorder.save();
    } finally {
      // The providers are gone from here on.
      await backends.close();
    }
  });

  it('the recording is what the run saw', async () => {
    expect(recorded['openai plain']).toMatchObject({ choices: [{ message: { content: 'Paris, on the Seine.' } }] });
    expect(recorded['anthropic tool call']).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
    for (const provider of PROVIDERS)
      expect(recorded[`${provider} tool result turn`]).toMatchObject({
        choices: [{ message: { content: 'It is 21 °C.' } }],
      });
    expect(recorded['google 429 then answer']).toMatchObject({
      switchyard: { attempts: [{ status: 429 }, { outcome: 'ok' }] },
    });
    expect(recorded['anthropic 401']).toMatchObject({ name: 'AuthenticationError', status: 401 });
    const file = JSON.parse(await readFile(path, 'utf8'));
    // 3 providers × (plain, stream, tool call, tool result, 429, retry) + the same question twice + the 401.
    expect(file.interactions).toHaveLength(PROVIDERS.length * 6 + 3);
  });

  it('replays with identical results, without network or keys, using every recorded interaction', async () => {
    const player = createCassette({
      path,
      mode: 'auto',
      fetch: () => Promise.reject(new Error('the network was used during a replay')),
    });
    expect(player.mode).toBe('replay');
    // Default base URLs (the real providers'), no keys: only the cassette can answer.
    const replayed = await agentRun(gatewayWith(player));
    expect(replayed).toEqual(recorded);
    expect(player.unused()).toEqual([]);
    // Twice, with a fresh cassette: deterministic.
    expect(await agentRun(gatewayWith(createCassette({ path, mode: 'replay' })))).toEqual(recorded);
  });

  it('stores no key, no auth header, and the streams as their SSE text', async () => {
    const text = await readFile(path, 'utf8');
    for (const key of Object.values(KEYS)) expect(text).not.toContain(key);
    expect(text).toContain('[redacted]');
    const file = JSON.parse(text) as {
      interactions: Array<{
        request: { method: string; url: string; body: Record<string, unknown> };
        response: { status: number; headers: Record<string, string>; body?: string; json?: unknown };
      }>;
    };
    // Requests keep no headers at all; responses keep the allowed few.
    for (const { request, response } of file.interactions) {
      expect(Object.keys(request).sort()).toEqual(['body', 'method', 'url']);
      for (const name of Object.keys(response.headers))
        expect(['content-type', 'retry-after', 'retry-after-ms', 'x-request-id', 'request-id']).toContain(name);
    }
    const openaiStream = file.interactions.find(
      (interaction) =>
        interaction.request.url.endsWith('/chat/completions') && interaction.request.body.stream === true,
    )!;
    expect(openaiStream.response.headers['content-type']).toContain('text/event-stream');
    expect(openaiStream.response.body).toContain('data: [DONE]');
    // The body is stored normalised: keys sorted, every field kept.
    expect(Object.keys(openaiStream.request.body)).toEqual([...Object.keys(openaiStream.request.body)].sort());
    expect(openaiStream.request.body.stream_options).toEqual({ include_obfuscation: false, include_usage: true });
    const geminiStream = file.interactions.find((interaction) =>
      interaction.request.url.includes(':streamGenerateContent'),
    )!;
    expect(new URL(geminiStream.request.url).searchParams.get('alt')).toBe('sse');
  });

  it('a request the cassette does not hold fails with an error naming it, through the gateway', async () => {
    const player = createCassette({ path, mode: 'replay' });
    const gateway = gatewayWith(player);
    const error = await bounded(
      gateway
        .createCompletion(
          { model: MODELS.openai, messages: [{ role: 'user', content: 'Something never asked' }] },
          { retry: { maxRetries: 0 } },
        )
        .catch((caught: unknown) => caught),
    );
    expect(error).toMatchObject({ name: 'ProviderError', provider: 'openai' });
    expect((error as Error).message).toContain(
      `The cassette ${path} has no recorded answer for POST /v1/chat/completions`,
    );
    expect((error as Error).message).toContain('Something never asked');
    expect((error as Error).message).toMatch(
      /differs: body\.messages\[0\]\.content was "Where is the Louvre\?", is "Something never asked"/,
    );

    // And directly, as a CassetteMismatchError.
    const direct = await player
      .fetch('https://api.anthropic.com/v1/messages', { method: 'POST', body: '{"model":"x"}' })
      .catch((caught: unknown) => caught);
    expect(direct).toBeInstanceOf(CassetteMismatchError);
    expect((direct as CassetteMismatchError).request).toMatchObject({
      method: 'POST',
      url: 'https://api.anthropic.com/v1/messages',
      body: { model: 'x' },
    });
  });
});

describe('cassettes: details', () => {
  it('drops key= query parameters and matches without them', async () => {
    const path = join(directory, 'query-key.json');
    const backends = await startBackends();
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const url = (key: string) => `${backends.google.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${key}`;
    try {
      const recorder = createCassette({ path, mode: 'record' });
      const live = await recorder.fetch(url(KEYS.google), {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(live.status).toBe(200);
      await recorder.save();
    } finally {
      await backends.close();
    }
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(KEYS.google);
    expect(text).not.toContain('key=');
    const replayed = await createCassette({ path, mode: 'replay' }).fetch(url('another-key-altogether'), {
      method: 'POST',
      body,
    });
    expect(
      ((await replayed.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> }).candidates[0]!
        .content.parts[0]!.text,
    ).toBe('Hello from fake gemini-2.5-flash');
  });

  it('ignoreFields leaves volatile body fields out of matching', async () => {
    const path = join(directory, 'ignore.json');
    const backends = await startBackends();
    try {
      const recorder = createCassette({ path, mode: 'record', ignoreFields: ['user'] });
      const gateway = createGateway({
        catalog,
        env: {},
        providers: recorder.providers('openai', providerSettings(backends)),
      });
      await gateway.createCompletion({
        model: MODELS.openai,
        messages: [{ role: 'user', content: 'hi' }],
        user: 'run-1',
      });
      await recorder.save();
    } finally {
      await backends.close();
    }
    const gateway = createGateway({
      catalog,
      env: {},
      providers: createCassette({ path, mode: 'replay', ignoreFields: ['user'] }).providers('openai'),
    });
    const response = await gateway.createCompletion({
      model: MODELS.openai,
      messages: [{ role: 'user', content: 'hi' }],
      user: 'run-2',
    });
    expect(response.choices[0]!.message.content).toBe(`Hello from fake ${MODELS.openai}`);
  });

  it('replay mode without a file says how to record it', () => {
    const path = join(directory, 'missing.json');
    expect(existsSync(path)).toBe(false);
    expect(() => createCassette({ path, mode: 'replay' })).toThrow(/Record it first/);
  });
});
