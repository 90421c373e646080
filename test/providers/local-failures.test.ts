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

/** Calls (`<model>:<transport>[:stream]`) in one child process whose Node.js lacks `zlib.createZstdDecompress`. */
async function callsWithoutZstd(calls: string[]): Promise<Map<string, Failure>> {
  const env = {
    PATH: process.env.PATH ?? '',
    OPENAI_API_KEY: 'sk-local',
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: 'sk-ant-local',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'gemini-local',
    GEMINI_BASE_URL: gemini.url,
  };
  const args = ['--conditions=switchyard-source', `--import=${join(here, 'without-zstd.ts')}`];
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
    failures = await callsWithoutZstd(calls);
  }, 60_000);

  it.each(calls)('%s: an InternalError naming the HTTP client, not the provider', (call) => {
    const error = failures.get(call)!;
    expect(error).toMatchObject({ name: 'InternalError', status: 500, code: 'internal_error' });
    expect(error.message).toContain('The HTTP client (undici) could not be started');
    expect(error.message).toContain("TypeError: Cannot read properties of undefined (reading 'bind')");
    expect(error.message).toContain('(at undici/lib/interceptor/decompress.js:');
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
