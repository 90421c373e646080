import { afterAll, describe, expect, it } from 'vitest';
import { MemorySink } from '../src/entries/stores.ts';
import { type CompletionMessageParam, type CompletionTool, createGateway } from '../src/index.ts';
import { startFakeAnthropicServer } from './fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from './fake-servers/gemini-server.ts';
import { startRawAnswerServer } from './fake-servers/raw-answer-server.ts';
import { collect } from './helpers/chunks.ts';
import { useFakeOpenAIServer } from './helpers/openai-env.ts';

/**
 * Prompt caching, provider-neutral: `cache_control` breakpoints as LiteLLM and OpenRouter take them reach Anthropic
 * where they were given (or placed by `prompt_cache: 'auto'`), pass through OpenRouter, and are dropped with one
 * warning elsewhere; OpenAI's and Gemini's own cache parameters pass through; cache reads and writes are priced.
 */
const openai = await useFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
const gemini = await startFakeGeminiServer();
afterAll(() => Promise.all([anthropic.close(), gemini.close()]));

const sink = new MemorySink();
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 0 },
  records: { sinks: [sink], flushIntervalMs: 10 },
  providers: {
    openai: { apiKey: 'sk-cache', baseURL: openai.url },
    openrouter: { apiKey: 'sk-or-cache', baseURL: openai.url },
    anthropic: { apiKey: 'sk-ant-cache', baseURL: anthropic.url },
    google: { apiKey: 'gemini-cache', baseURL: gemini.url },
  },
});
const HAIKU = 'claude-haiku-4-5-20251001';
const longPolicy = 'You are the support agent of Acme. Policy: '.padEnd(4_000, 'be kind. ');
const tools: CompletionTool[] = [
  { type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: {} } } },
  {
    type: 'function',
    function: { name: 'refund', parameters: { type: 'object', properties: {} } },
    cache_control: { type: 'ephemeral', ttl: '1h' },
  },
];
const marked: CompletionMessageParam[] = [
  { role: 'system', content: longPolicy, cache_control: { type: 'ephemeral', ttl: '1h' } },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Here is the order history: …' },
      { type: 'text', text: 'Order 42 never arrived.', cache_control: { type: 'ephemeral' } },
    ],
  },
];
const sentTo = (server: { requests: Array<{ body: Record<string, any> }> }) => server.requests.at(-1)!.body;

describe('Anthropic', () => {
  it('gets the breakpoints where they were given, and the cache writes and reads are priced', async () => {
    anthropic.enqueue({
      usage: {
        input_tokens: 100,
        cache_creation_input_tokens: 10_000,
        cache_creation_1h_input_tokens: 4_000,
        cache_read_input_tokens: 20_000,
        output_tokens: 500,
      },
    });
    const response = await gateway.createCompletion({
      model: HAIKU,
      messages: marked,
      tools,
      metadata: { agent_id: 'cache-test' },
    });
    const body = sentTo(anthropic);
    expect(body.system).toEqual([{ type: 'text', text: longPolicy, cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    expect(body.tools.map((tool: { cache_control?: unknown }) => tool.cache_control)).toEqual([
      undefined,
      { type: 'ephemeral', ttl: '1h' },
    ]);
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Here is the order history: …' },
      { type: 'text', text: 'Order 42 never arrived.', cache_control: { type: 'ephemeral' } },
    ]);

    expect(response.usage?.prompt_tokens_details).toEqual({
      cached_tokens: 20_000,
      cache_write_tokens: 10_000,
      cache_write_1h_tokens: 4_000,
    });
    // Haiku 4.5: input $1, cache read $0.1, 5-minute write $1.25, 1-hour write $2, output $5 per 1M tokens:
    // 100 × 1 + 20,000 × 0.1 + 6,000 × 1.25 + 4,000 × 2 + 500 × 5 = 20,100 → $0.0201
    expect(response.switchyard.cost).toEqual({
      input: 0.0001,
      cache_read: 0.002,
      cache_write: 0.0155,
      output: 0.0025,
      reasoning: 0,
    });
    expect(response.switchyard.cost_usd).toBe(0.0201);
    await gateway.flush();
    const record = sink.records().find((candidate) => candidate.agent_id === 'cache-test')!;
    expect(record.cost_usd).toBe(0.0201);
    expect(record.usage).toMatchObject({
      cached_tokens: 20_000,
      cache_write_tokens: 10_000,
      cache_write_1h_tokens: 4_000,
    });
  });

  it('streams the same usage', async () => {
    anthropic.enqueue({ usage: { input_tokens: 10, cache_creation_input_tokens: 3_000, output_tokens: 20 } });
    const stream = await gateway.createCompletion({
      model: HAIKU,
      messages: marked,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await collect(stream);
    expect(chunks.at(-1)!.usage?.prompt_tokens_details).toMatchObject({ cache_write_tokens: 3_000 });
    // 10 × 1 + 3,000 × 1.25 + 20 × 5 = 3,860 → $0.00386
    expect(stream.switchyard?.cost_usd).toBe(0.00386);
  });

  it("prompt_cache: 'auto' marks the end of the tools, the system prompt and the latest message", async () => {
    await gateway.createCompletion({
      model: HAIKU,
      prompt_cache: 'auto',
      tools: [tools[0]!],
      messages: [
        { role: 'system', content: longPolicy },
        { role: 'user', content: 'Where is order 42?' },
        { role: 'assistant', content: 'Let me check.' },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    const body = sentTo(anthropic);
    expect(body.tools[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.messages.at(-1).content).toEqual([
      { type: 'text', text: 'Thanks.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages[0].content).toBe('Where is order 42?');
  });

  it("the gateway's promptCache: 'auto' adds to the caller's marks up to four; a request may turn it off", async () => {
    const auto = createGateway({
      env: {},
      promptCache: 'auto',
      providers: { anthropic: { apiKey: 'sk-ant-cache', baseURL: anthropic.url } },
    });
    await auto.createCompletion({ model: HAIKU, messages: marked, tools });
    // Caller: tool 2, system, the user part (3); auto adds the latest message's last block, already marked: still 3.
    const body = sentTo(anthropic);
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(3);
    await auto.createCompletion({ model: HAIKU, messages: [{ role: 'user', content: 'hi' }], prompt_cache: false });
    expect(JSON.stringify(sentTo(anthropic))).not.toContain('cache_control');
  });

  it('more than four breakpoints: the earliest dropped with a warning, Anthropic accepts the rest', async () => {
    const five: CompletionMessageParam[] = [1, 2, 3, 4, 5].map((turn) => ({
      role: turn % 2 ? 'user' : 'assistant',
      content: `turn ${turn}`,
      cache_control: { type: 'ephemeral' },
    })) as CompletionMessageParam[];
    const response = await gateway.createCompletion({ model: HAIKU, messages: five });
    const marks = sentTo(anthropic).messages.map((message: { content: Array<{ cache_control?: unknown }> }) =>
      message.content[0]?.cache_control ? 'marked' : 'plain',
    );
    expect(marks).toEqual(['plain', 'marked', 'marked', 'marked', 'marked']);
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({
        code: 'cache_breakpoints_dropped',
        message: 'Anthropic takes at most 4 cache breakpoints; the first 1 of 5 were not sent.',
      }),
    ]);
  });
});

describe('the OpenAI family', () => {
  it('OpenAI gets prompt_cache_key and prompt_cache_retention, no cache_control (one warning per call)', async () => {
    const response = await gateway.createCompletion({
      model: 'gpt-5-mini-2025-08-07',
      messages: marked,
      tools,
      prompt_cache_key: 'support-bot-v3',
      prompt_cache_retention: '24h',
    });
    const body = sentTo(openai);
    expect(body).toMatchObject({ prompt_cache_key: 'support-bot-v3', prompt_cache_retention: '24h' });
    expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(body.messages[0]).toEqual({ role: 'system', content: longPolicy });
    expect(response.switchyard.warnings.filter((warning) => warning.code === 'cache_control_dropped')).toHaveLength(1);
  });

  it('OpenRouter gets the breakpoints as written, for the models behind it that cache', async () => {
    await gateway.createCompletion({ model: 'openrouter/anthropic/claude-haiku-4.5', messages: marked, tools });
    const body = sentTo(openai);
    expect(body.messages[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(body.messages[1].content[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.tools[1].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
  });

  it('cached_content is Gemini’s: other providers drop it with a warning', async () => {
    const response = await gateway.createCompletion({
      model: 'gpt-5.4-2026-03-05',
      messages: [{ role: 'user', content: 'hi' }],
      cached_content: 'cachedContents/abc',
    });
    expect(sentTo(openai).cached_content).toBeUndefined();
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_parameter', param: 'cached_content' }),
    ]);
  });
});

describe('DeepSeek', () => {
  it('reports its prompt_cache_hit_tokens as cached_tokens, priced at its cache price', async () => {
    const raw = await startRawAnswerServer();
    const deepseek = createGateway({ env: {}, providers: { deepseek: { apiKey: 'sk-ds', baseURL: raw.origin } } });
    const answer = {
      id: 'ds-1',
      object: 'chat.completion',
      created: 1,
      model: 'deepseek-v4.1-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }],
      usage: {
        prompt_tokens: 100_000,
        completion_tokens: 5_000,
        total_tokens: 105_000,
        prompt_cache_hit_tokens: 90_000,
        prompt_cache_miss_tokens: 10_000,
      },
    };
    raw.enqueue({ json: JSON.stringify(answer) });
    const response = await deepseek.createCompletion({ model: 'deepseek-v4.1-flash', messages: marked });
    await raw.close();
    expect(response.usage?.prompt_tokens_details?.cached_tokens).toBe(90_000);
    // 10,000 × 0.3 + 90,000 × 0.006 + 5,000 × 1.2 = 9,540 → $0.00954
    expect(response.switchyard.cost_usd).toBe(0.00954);
  });
});

describe('Gemini', () => {
  it('gets cached_content as cachedContent, no cache_control, and reports implicit cache hits', async () => {
    gemini.enqueue({ text: 'ok', usage: { promptTokenCount: 5_000, cachedContentTokenCount: 4_000 } });
    const response = await gateway.createCompletion({
      model: 'gemini-2.5-flash',
      messages: marked,
      cached_content: 'cachedContents/support-policy',
    });
    const sent = gemini.requests.at(-1)!.body;
    expect(sent.cachedContent).toBe('cachedContents/support-policy');
    expect(JSON.stringify(sent)).not.toContain('cache_control');
    expect(response.usage?.prompt_tokens_details?.cached_tokens).toBe(4_000);
    expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual(['cache_control_dropped']);
  });
});

describe('validation', () => {
  it.each([
    [{ type: 'persistent' }, 'messages[0].cache_control'],
    [{ type: 'ephemeral', ttl: '2h' }, 'messages[0].cache_control'],
  ])('refuses cache_control %j with a 400 naming where', async (control, param) => {
    await expect(
      gateway.createCompletion({
        model: HAIKU,
        messages: [{ role: 'user', content: 'hi', cache_control: control } as never],
      }),
    ).rejects.toMatchObject({ status: 400, param });
  });

  it('refuses a bad prompt_cache', async () => {
    await expect(
      gateway.createCompletion({
        model: HAIKU,
        messages: [{ role: 'user', content: 'hi' }],
        prompt_cache: 'always' as never,
      }),
    ).rejects.toMatchObject({ status: 400, param: 'prompt_cache' });
  });
});
