import { afterAll, describe, expect, it } from 'vitest';
import type { ProviderTransport } from '../../src/entries/providers.ts';
import { type CompletionRequest, createGateway } from '../../src/index.ts';
import { type FakeAnthropicReply, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type GeminiReply, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeReply, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * The wire transport and the official SDKs, side by side against the same fake servers: every scenario runs once on
 * each, and they must agree on everything a caller or a record sees (the answer or its chunks, usage, warnings,
 * the error and its attempts) and on the request body each provider received. Run-specific values (ids, times,
 * durations) are blanked first. The wire transport runs twice: on the pooled undici dispatcher (Node's default) and
 * over `fetch` (what Bun, Deno and workers use: the same sender as a caller's `fetch`, here Node's own).
 */
const openai = await startFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
const gemini = await startFakeGeminiServer();
afterAll(() => Promise.all([openai.close(), anthropic.close(), gemini.close()]));

const hello = [{ role: 'user' as const, content: 'Say hello' }];
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const cityFormat = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'city',
    strict: true,
    schema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

type Provider = 'openai' | 'anthropic' | 'google';
type Reply = FakeReply | FakeAnthropicReply | GeminiReply;
interface Scenario {
  name: string;
  provider: Provider;
  replies: Reply[];
  request: Omit<CompletionRequest, 'model' | 'messages'> & { model: string; messages?: CompletionRequest['messages'] };
  /** The providers' `timeoutMs`, when the scenario is about it. */
  timeoutMs?: number;
  /** The gateway's `maxRetries` (default 1). */
  retries?: number;
  /**
   * The fake's answer to every request instead of `replies`, nothing left queued either way. What it received is not
   * compared: a request can time out before it leaves (an SDK starts its timer before it connects).
   */
  hold?: Reply;
}

/** How the call is sent: the provider's SDK, the wire transport on the pooled dispatcher, or on `fetch`. */
type Sender = ProviderTransport | 'wire over fetch';

const MODELS: Record<Provider, string> = {
  openai: 'openai/gpt-4o-2024-11-20',
  anthropic: 'anthropic/claude-sonnet-4-5-20250929',
  google: 'google/gemini-2.5-flash',
};

function scenarios(provider: Provider): Scenario[] {
  const model = MODELS[provider];
  const text: Record<Provider, Reply> = {
    openai: { content: 'Hi there', usage: { prompt_tokens: 9, completion_tokens: 3, cached_tokens: 4 } },
    anthropic: { content: [{ type: 'text', text: 'Hi there' }], usage: { input_tokens: 9, output_tokens: 3 } },
    google: { text: 'Hi there', usage: { promptTokenCount: 9, candidatesTokenCount: 3 } },
  };
  const toolCall: Record<Provider, Reply> = {
    openai: { content: null, tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    anthropic: {
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
      stop_reason: 'tool_use',
    },
    google: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
  };
  const rateLimited: Record<Provider, Reply> = {
    openai: { error: { status: 429, message: 'Slow down', type: 'rate_limit_error', headers: { 'retry-after': '0' } } },
    anthropic: { error: { status: 429, type: 'rate_limit_error', message: 'Slow', headers: { 'retry-after': '0' } } },
    google: { error: { status: 429, googleStatus: 'RESOURCE_EXHAUSTED', message: 'Slow down', retryDelay: '0s' } },
  };
  const badRequest: Record<Provider, Reply> = {
    openai: { error: { status: 400, message: 'Bad temperature', type: 'invalid_request_error', param: 'temperature' } },
    anthropic: { error: { status: 400, type: 'invalid_request_error', message: 'temperature: out of range' } },
    google: { error: { status: 400, googleStatus: 'INVALID_ARGUMENT', message: 'Bad temperature' } },
  };
  const brokenStream: Record<Provider, Reply> = {
    openai: { content: 'Hello there, friend', streamErrorAfter: 2 },
    anthropic: { content: [{ type: 'text', text: 'Hello there, friend' }], streamErrorAfter: 2 },
    google: { text: 'Hello there, friend', streamErrorAfter: 2 },
  };
  const cut: Record<Provider, Reply> = {
    openai: { content: 'Hello there, friend', truncateAfter: 2 },
    anthropic: { content: [{ type: 'text', text: 'Hello there, friend' }], reset: true },
    google: { text: 'Hello there, friend', truncateAfter: 2 },
  };
  const tools = { tools: [weatherTool], tool_choice: 'auto' as const };
  const paris = '{"city":"Paris"}';
  const json: Record<Provider, Reply> = {
    openai: { content: paris },
    anthropic: { content: [{ type: 'text', text: paris }] },
    google: { text: paris },
  };
  return [
    {
      // Every answer is held far longer than the timeout: the test waits only for the timeout (a bound, not a timing).
      name: 'no answer within the timeout',
      provider,
      replies: [],
      hold: { ...text[provider], delayMs: 5_000 },
      request: { model, stream: true },
      timeoutMs: 50,
      retries: 0,
    },
    { name: 'a text answer', provider, replies: [text[provider]], request: { model, temperature: 0.3 } },
    { name: 'a streamed text answer', provider, replies: [text[provider]], request: { model, stream: true } },
    { name: 'a tool call', provider, replies: [toolCall[provider]], request: { model, ...tools } },
    {
      name: 'a streamed tool call',
      provider,
      replies: [toolCall[provider]],
      request: { model, ...tools, stream: true },
    },
    {
      name: 'structured output',
      provider,
      replies: [json[provider]],
      request: { model, response_format: cityFormat },
    },
    { name: 'a 429 then an answer', provider, replies: [rateLimited[provider], text[provider]], request: { model } },
    { name: 'a 400', provider, replies: [badRequest[provider]], request: { model } },
    {
      name: 'an error event mid-stream',
      provider,
      replies: [brokenStream[provider]],
      request: { model, stream: true },
    },
    { name: 'a connection cut', provider, replies: [cut[provider], cut[provider]], request: { model, stream: true } },
  ];
}

function gatewayFor(sender: Sender, scenario: Pick<Scenario, 'timeoutMs' | 'retries'>) {
  const own = {
    ...(sender === 'wire over fetch'
      ? { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init) }
      : {}),
    ...(scenario.timeoutMs ? { timeoutMs: scenario.timeoutMs } : {}),
  };
  return createGateway({
    env: {},
    transport: sender === 'sdk' ? 'sdk' : 'wire',
    providers: {
      openai: { apiKey: 'sk-test', baseURL: openai.url, ...own },
      anthropic: { apiKey: 'sk-ant-test', baseURL: anthropic.url, ...own },
      google: { apiKey: 'goog-test', baseURL: gemini.url, ...own },
    },
    retry: { maxRetries: scenario.retries ?? 1, initialDelayMs: 1, maxDelayMs: 5 },
    // The same limit on every sender: a caller's fetch is held to it only when it is set.
    maxResponseBytes: 8 * 1024 * 1024,
  });
}

async function run(scenario: Scenario, sender: Sender) {
  const fake = scenario.provider === 'openai' ? openai : scenario.provider === 'anthropic' ? anthropic : gemini;
  fake.requests.length = 0;
  (fake.enqueue as (...replies: Reply[]) => void)(...scenario.replies);
  const hold = scenario.hold;
  if (hold) (fake as unknown as { respondWith?: () => Reply }).respondWith = () => hold;
  const gateway = gatewayFor(sender, scenario);
  const outcome: Record<string, unknown> = {};
  try {
    const result = await gateway.createCompletion({ messages: hello, ...scenario.request } as CompletionRequest);
    if (Symbol.asyncIterator in result) {
      const chunks: unknown[] = [];
      for await (const chunk of result) chunks.push(chunk);
      outcome.chunks = chunks;
    } else outcome.response = result;
  } catch (error) {
    const { name, message, status, code, param, retryable, attempts } = error as Record<string, unknown>;
    outcome.error = { name, message, status, code, param, retryable, attempts };
  }
  await gateway.close();
  fake.respondWith = undefined;
  if (!scenario.hold) outcome.sent = fake.requests.map((request) => request.body);
  return blanked(outcome);
}

const VARYING = new Set(['id', 'created', 'call_id', 'duration_ms', 'responseId', 'request_id']);
// What a broken connection is called: the SDKs wrap it (`fetch failed`); the wire transport names the socket's error
// (`UND_ERR_SOCKET`). The rest of the message, the status, code and retry decision must agree.
const NETWORK_DETAIL = /(Could not reach \S+ \(\S+\) at \S+): .+$/;

/**
 * A copy with the values that differ from run to run (ids, timestamps, durations) replaced by their type, and the
 * network failure's own wording set aside.
 */
function blanked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(blanked);
  if (typeof value === 'string') return value.replace(NETWORK_DETAIL, '$1: <connection failure>');
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, VARYING.has(key) ? typeof item : blanked(item)]),
  );
}

for (const provider of ['openai', 'anthropic', 'google'] as const) {
  describe(`${provider}: the wire transport, pooled and over fetch, answers exactly as the SDK`, () => {
    for (const scenario of scenarios(provider)) {
      it(scenario.name, async () => {
        const sdk = await run(scenario, 'sdk');
        const wire = await run(scenario, 'wire');
        expect(wire).toEqual(sdk);
        expect(await run(scenario, 'wire over fetch')).toEqual(sdk);
        // The scenario did what it says: an answer, chunks or an error, and the provider was called.
        expect(Object.keys(sdk as object)).toHaveLength(scenario.hold ? 1 : 2);
        if (scenario.hold) expect(sdk).toMatchObject({ error: { code: 'timeout', status: 408 } });
        else expect((sdk as { sent: unknown[] }).sent.length).toBeGreaterThan(0);
      });
    }
  });
}

describe('embeddings: the wire transport answers exactly as the SDK', () => {
  for (const [provider, model] of [
    ['openai', 'openai/text-embedding-3-small'],
    ['google', 'google/gemini-embedding-001'],
  ] as const) {
    it(provider, async () => {
      const results = [];
      for (const transport of ['sdk', 'wire'] as const) {
        const fake = provider === 'openai' ? openai : gemini;
        fake.requests.length = 0;
        const gateway = createGateway({
          env: {},
          transport,
          providers: {
            openai: { apiKey: 'sk-test', baseURL: openai.url },
            google: { apiKey: 'goog-test', baseURL: gemini.url },
          },
        });
        const answer = await gateway.createEmbedding({ model, input: ['one', 'two three'], dimensions: 8 });
        await gateway.close();
        results.push(blanked({ answer, sent: fake.requests.map((request) => request.body) }));
      }
      expect(results[1]).toEqual(results[0]);
    });
  }
});

describe('the transport in force', () => {
  it('is the wire unless SWITCHYARD_TRANSPORT says sdk (the sdk project runs these suites on the SDKs)', async () => {
    const gateway = createGateway({ env: {}, providers: { openai: { apiKey: 'sk-test', baseURL: openai.url } } });
    openai.requests.length = 0;
    openai.enqueue({ content: 'Hi' });
    await gateway.createCompletion({ model: MODELS.openai, messages: hello });
    await gateway.close();
    const agent = String(openai.requests[0]?.headers['user-agent']);
    if (process.env.SWITCHYARD_TRANSPORT === 'sdk') expect(agent).toMatch(/^OpenAI\/JS /);
    else expect(agent).toBe('switchyard-llm');
  });
});
