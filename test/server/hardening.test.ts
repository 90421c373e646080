import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { api, jsonOf, rawRequest, startTestServer, type TestServer } from './start-test-server.ts';

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('HEAD on a route whose GET streams its answer', () => {
  it("gives the key's slot back: more HEADs than the key may have in flight leave it able to call", async () => {
    const test = await startTestServer({ maxConcurrentPerKey: 2 });
    try {
      for (let head = 0; head < 5; head++) {
        const response = await fetch(`${test.url}/v1/calls`, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${test.key}` },
        });
        expect(response.status).toBe(200);
      }
      const after = await api(test, '/v1/calls');
      expect(after.status).toBe(200);
    } finally {
      await test.stop();
    }
  });
});

describe('GET /v1/health and HEAD', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({ version: '9.9.9' });
  });
  afterAll(() => test.stop());

  it('answers without a key: status, version, uptime, providers and the record counters', async () => {
    await test.openai().chat.completions.create({ model: 'gpt-4o-latest', messages });
    await test.server.gateway.flush();
    const response = await api(test, '/v1/health', { key: null });
    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toEqual({
      status: 'ok',
      version: '9.9.9',
      uptime_s: expect.any(Number),
      providers: ['mock'],
      records: { queued: 0, written: 1, dropped: 0, failed: 0, build_failed: 0, last_loss_at: null, journal_writes: 1 },
    });
  });

  it('HEAD works wherever GET does: same status and headers, no body', async () => {
    for (const path of ['/v1/health', '/v1/models', '/v1/models/gpt-4o-latest', '/']) {
      const get = await rawRequest(`${test.url}${path}`, {
        headers: { authorization: `Bearer ${test.key}`, host: new URL(test.url).host },
      });
      const head = await fetch(`${test.url}${path}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${test.key}` },
      });
      expect(head.status, path).toBe(get.status);
      expect(head.status, path).toBe(200);
      expect(await head.text()).toBe('');
      expect(Number(head.headers.get('content-length')), path).toBeGreaterThan(0);
    }
    const keyed = await fetch(`${test.url}/v1/calls`, { method: 'HEAD' });
    expect(keyed.status).toBe(401);
    const post = await fetch(`${test.url}/v1/models`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('GET /v1/models/{provider}/{model} (and %2F) resolves as the chat model parameter does', async () => {
    const plain = await jsonOf(await api(test, '/v1/models/gpt-4o-latest', { key: null }));
    for (const path of [
      '/v1/models/openai/gpt-4o-latest',
      '/v1/models/openai%2Fgpt-4o-latest',
      '/v1/models/my-agent/gpt-4o-latest',
      '/v1/models/my-agent/openai/gpt-4o-latest',
    ]) {
      const response = await api(test, path, { key: null });
      expect(response.status, path).toBe(200);
      expect(await jsonOf(response), path).toEqual(plain);
    }
    const client = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    expect((await client.models.retrieve('openai/gpt-4o-latest')).id).toBe(plain.id);
    // As a chat call: a provider the catalog does not list for the model keeps the model's facts.
    const elsewhere = await api(test, '/v1/models/azure%2Fgpt-4o-latest', { key: null });
    expect(elsewhere.status).toBe(200);
    expect(await jsonOf(elsewhere)).toEqual(plain);
    expect((await api(test, '/v1/models/openai/no-such-model', { key: null })).status).toBe(404);
  });

  it('the MCP server does not advertise tools.listChanged, which a stateless exchange cannot send', async () => {
    const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${test.key}` } },
      }),
    );
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    await client.close();
  });
});

describe('per-key concurrency limit', () => {
  let release: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (release = resolve));
  const mock = new MockProvider({
    respond: async () => {
      await gate;
      return 'done';
    },
  });
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({ mock, maxConcurrentPerKey: 2 });
  });
  afterAll(() => test.stop());

  it('a key over its limit gets 429 rate_limit_error with retry-after; other keys, later requests pass', async () => {
    const client = test.openai();
    const held = [
      client.chat.completions.create({ model: 'gpt-4o-latest', messages }),
      client.chat.completions.create({ model: 'gpt-4o-latest', messages, stream: true }),
    ];
    await expect.poll(() => mock.calls.length).toBe(2);
    const refused = await api(test, '/v1/chat/completions', { body: { model: 'gpt-4o-latest', messages } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await jsonOf(refused)).toEqual({
      error: {
        message: expect.stringContaining('2 requests in flight'),
        type: 'rate_limit_error',
        param: null,
        code: 'concurrency_limit_exceeded',
      },
    });
    const sdkError = await client.chat.completions
      .create({ model: 'gpt-4o-latest', messages })
      .catch((error: unknown) => error);
    expect(sdkError).toBeInstanceOf(OpenAI.RateLimitError);
    // Another key has its own slots.
    const { key: other } = await test.server.keys.create('other');
    const otherCall = test.openai(other).chat.completions.create({ model: 'gpt-4o-latest', messages });
    await expect.poll(() => mock.calls.length).toBe(3);

    release();
    const [plain, stream] = await Promise.all(held);
    expect((plain as OpenAI.ChatCompletion).choices[0]!.message.content).toBe('done');
    // The stream holds its slot until it is read to the end.
    let text = '';
    for await (const chunk of stream as AsyncIterable<OpenAI.ChatCompletionChunk>)
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('done');
    await otherCall;
    gate = Promise.resolve();
    const again = await Promise.all(
      [1, 2].map(() => client.chat.completions.create({ model: 'gpt-4o-latest', messages })),
    );
    expect(again.map((answer) => answer.choices[0]!.message.content)).toEqual(['done', 'done']);
  });

  it('clients that leave before their streams end give their slots back', async () => {
    let unblock: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (unblock = resolve));
    const client = test.openai();
    const before = mock.calls.length;
    const controllers = [new AbortController(), new AbortController()];
    const streams = controllers.map((controller) =>
      client.chat.completions
        .create({ model: 'gpt-4o-latest', messages, stream: true }, { signal: controller.signal })
        .catch(() => undefined),
    );
    await expect.poll(() => mock.calls.length).toBe(before + 2);
    expect((await api(test, '/v1/chat/completions', { body: { model: 'gpt-4o-latest', messages } })).status).toBe(429);
    for (const controller of controllers) controller.abort();
    await Promise.all(streams);
    unblock();
    await expect
      .poll(
        async () => (await api(test, '/v1/chat/completions', { body: { model: 'gpt-4o-latest', messages } })).status,
      )
      .toBe(200);
    const both = await Promise.all(
      [1, 2].map(() => api(test, '/v1/chat/completions', { body: { model: 'gpt-4o-latest', messages, stream: true } })),
    );
    expect(both.map((response) => response.status)).toEqual([200, 200]);
    await Promise.all(both.map((response) => response.text()));
  });
});

describe('a server without provider credentials', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({ mock: false, gateway: { env: {} } });
  });
  afterAll(() => test.stop());

  it('answers a valid client key with 503 provider_not_configured naming the variables, never a 401', async () => {
    const error = await test
      .openai()
      .chat.completions.create({ model: 'gpt-4o-latest', messages })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 503, type: 'server_error', code: 'provider_not_configured' });
    expect((error as Error).message).toContain('OPENAI_API_KEY');
    const response = await api(test, '/v1/chat/completions', { body: { model: 'gpt-4o-latest', messages } });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-switchyard-call-id')).toBeTruthy();
  });

  it('says at startup which providers have credentials, and /v1/health lists them', async () => {
    expect(test.logs.find((line) => line.msg === 'listening')).toMatchObject({ providers: [] });
    expect(test.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: expect.stringMatching(/^no provider has credentials: .*OPENAI_API_KEY/),
      }),
    );
    expect((await jsonOf(await api(test, '/v1/health', { key: null }))).providers).toEqual([]);
  });
});

describe('startup log of providers with credentials', () => {
  it('names each provider that has a key from the options or the environment', async () => {
    const test = await startTestServer({
      mock: false,
      gateway: {
        env: { ANTHROPIC_API_KEY: 'sk-ant-test-000000000000000000', OLLAMA_BASE_URL: 'http://127.0.0.1:1/v1' },
        providers: { openai: { apiKey: 'x' } },
      },
    });
    try {
      expect(test.logs.find((line) => line.msg === 'listening')).toMatchObject({
        providers: ['openai', 'ollama', 'anthropic'],
      });
      expect(JSON.stringify(test.logs)).not.toContain('sk-ant-test');
    } finally {
      await test.stop();
    }
  });
});
