import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMapper, type ProviderDefinition } from '../../src/entries/providers.ts';
import { createGateway, InternalError } from '../../src/index.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * A failure inside this process is never reported as the provider's: a runtime that lacks an API the package needs
 * (issue 35: on Node 20 and 22.12–22.14 every call said "openai (…) sent an answer that is not valid: Cannot read
 * properties of undefined (reading 'bind')"), and a bug of ours (a TypeError, a ReferenceError), are an
 * `InternalError` (500, `internal_error`) that names what failed, not retried.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const here = join(import.meta.dirname, 'local-failure');

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
});
afterAll(() => Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]));

interface Failure {
  call: string;
  name: string;
  status: number;
  code: string;
  message: string;
}

/** Calls (`<model>:<transport>[:stream]`) in one child process where undici cannot load (`undici-unloadable.ts`). */
async function callsWithoutHttpClient(calls: string[]): Promise<Map<string, Failure>> {
  const env = {
    PATH: process.env.PATH ?? '',
    OPENAI_API_KEY: 'sk-local',
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: 'sk-ant-local',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'gemini-local',
    GEMINI_BASE_URL: gemini.url,
  };
  const args = ['--conditions=switchyard-source', `--import=${join(here, 'undici-unloadable.ts')}`];
  const { stdout } = await promisify(execFile)(node, [...args, join(root, 'test/helpers/call-child.ts'), ...calls], {
    cwd: root,
    env,
  });
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Failure);
  return new Map(lines.map((line) => [line.call, line]));
}

describe('a runtime without an API the HTTP client needs', () => {
  const calls = ['gpt-sol-latest', 'claude-sonnet-latest', 'gemini-flash-latest'].flatMap((model) => [
    `${model}:wire`,
    `${model}:sdk`,
    `${model}:wire:stream`,
  ]);
  let failures: Map<string, Failure>;
  beforeAll(async () => {
    failures = await callsWithoutHttpClient(calls);
  }, 60_000);

  it.each(calls)('%s: an InternalError naming the HTTP client, not the provider', (call) => {
    const error = failures.get(call)!;
    expect(error).toMatchObject({ name: 'InternalError', status: 500, code: 'internal_error' });
    expect(error.message).toContain('The HTTP client (undici) could not be started');
    expect(error.message).toContain("TypeError: Cannot read properties of undefined (reading 'bind')");
    expect(error.message).toContain('(at undici/lib/dispatcher/agent.js:');
    expect(error.message).not.toMatch(/sent an answer|Could not reach|answered/);
  });
});

describe('a bug of ours inside an adapter', () => {
  /** A provider whose adapter trips over its own code, through the exported error skeleton as built-ins use it. */
  const buggy = (fault: () => never): ProviderDefinition => ({
    id: 'buggy',
    envPrefix: 'BUGGY',
    defaultBaseURL: 'http://127.0.0.1:9',
    requiresApiKey: false,
    capabilities: { nativeOutput: () => false },
    create: async (settings) => {
      const errors = errorMapper('buggy', settings, () => {
        throw new Error('the classifier must not be asked about a local failure');
      });
      return {
        name: 'buggy',
        complete: async (call) => {
          try {
            return fault();
          } catch (error) {
            throw errors.map(error, call.body.model, { signal: call.signal });
          }
        },
        stream: async () => fault(),
      };
    },
  });
  const call = (fault: () => never) =>
    createGateway({ env: {}, providers: { buggy: { definition: buggy(fault) } } }).createCompletion({
      model: 'buggy/model-1',
      messages: [{ role: 'user', content: 'hi' }],
    });

  it('a TypeError is an InternalError naming the error and where it was thrown, tried once', async () => {
    let tries = 0;
    const error = await call(() => {
      tries += 1;
      const settings: { limits?: { depth: number } } = {};
      return settings.limits!.depth as never;
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InternalError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error', type: 'server_error' });
    const { message } = error as InternalError;
    expect(message).toContain('buggy (model-1)');
    expect(message).toContain("TypeError: Cannot read properties of undefined (reading 'depth')");
    expect(message).toContain('local-failures.test.ts');
    expect(message).not.toContain('sent an answer');
    expect(tries).toBe(1);
  });

  it('a ReferenceError too', async () => {
    const error = await call(() => {
      throw new ReferenceError('structuredClone is not defined');
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InternalError);
    expect((error as InternalError).message).toContain('ReferenceError: structuredClone is not defined');
  });
});

describe('where a fetch fails decides whose fault it is (issue 38)', () => {
  /**
   * Bun's undici has an `Agent` whose `request` is missing: every call failed with "TypeError: pool.request is not a
   * function" and was reported as "openai (…) sent an answer that is not valid". A fetch that throws before it returns
   * a promise never sent anything: ours. A fetch whose promise rejects is the network, by fetch's contract, even as a
   * TypeError without a cause (a browser's "Failed to fetch", Deno's "error sending request").
   */
  const gatewayWith = (fetchImpl: typeof fetch) =>
    createGateway({
      env: {},
      providers: {
        openai: { apiKey: 'sk-local', baseURL: openai.url, fetch: fetchImpl },
        anthropic: { apiKey: 'sk-ant-local', baseURL: anthropic.url },
      },
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 },
    });
  const request = {
    model: 'openai/gpt-4o-2024-11-20',
    messages: [{ role: 'user' as const, content: 'hi' }],
    fallbacks: ['anthropic/claude-sonnet-4-5-20250929'],
  };

  it.each([false, true])(
    'a fetch that throws a TypeError at once is an InternalError naming it, not retried nor failed over (stream: %s)',
    async (stream) => {
      let tries = 0;
      const bunShaped = (() => {
        tries += 1;
        const pool = {} as { request?: () => Promise<Response> };
        return pool.request!();
      }) as unknown as typeof fetch;
      anthropic.requests.length = 0;
      const gateway = gatewayWith(bunShaped);
      const error = await gateway.createCompletion({ ...request, stream }).catch((thrown: unknown) => thrown);
      await gateway.close();
      expect(error).toBeInstanceOf(InternalError);
      expect(error).toMatchObject({ status: 500, code: 'internal_error' });
      const { message } = error as InternalError;
      expect(message).toContain("not the provider's: TypeError: pool.request is not a function");
      expect(message).toContain('local-failures.test.ts');
      expect(message).not.toMatch(/sent an answer|Could not reach/);
      // A fault of this process would fail at every provider alike: neither retried nor tried at the fallback.
      expect(tries).toBe(1);
      expect(anthropic.requests).toHaveLength(0);
    },
  );

  it("a fetch rejecting with a TypeError without cause (a browser's) is an unreachable provider, retried", async () => {
    let tries = 0;
    const offline = (async () => {
      tries += 1;
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    const gateway = gatewayWith(offline);
    anthropic.enqueue({ content: [{ type: 'text', text: 'From the fallback' }] });
    const answer = await gateway.createCompletion(request);
    await gateway.close();
    expect(answer.choices[0]?.message.content).toBe('From the fallback');
    expect(tries).toBe(3);
    expect(answer.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual([
      'connection_error',
      'connection_error',
      'connection_error',
      'ok',
    ]);
  });

  it('a body that fails mid-stream with a TypeError without cause is a broken connection, not ours', async () => {
    const encoder = new TextEncoder();
    const breaking = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-2024-11-20' };
            const delta = { ...chunk, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] };
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(delta)}\n\n`));
            controller.error(new TypeError('error reading a body from connection'));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )) as unknown as typeof fetch;
    const gateway = createGateway({
      env: {},
      providers: { openai: { apiKey: 'sk-local', baseURL: openai.url, fetch: breaking } },
      retry: { maxRetries: 0 },
    });
    // Met while the first chunks are read (the call fails as it opens) or while the caller reads: either way the same.
    const error = await (async () => {
      for await (const _chunk of await gateway.createCompletion({ ...request, fallbacks: [], stream: true }));
    })().catch((thrown: unknown) => thrown);
    await gateway.close();
    expect(error).not.toBeInstanceOf(InternalError);
    expect(error).toMatchObject({ code: 'connection_error' });
    expect((error as Error).message).toContain('error reading a body from connection');
  });
});
