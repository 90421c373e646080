import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOptional, MissingPackageError } from '../../src/internal/optional-package.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * The provider SDKs are optional dependencies: a program without one still runs, and a call that needs it fails with a
 * typed error naming the package and the install command. The program runs in a child Node.js whose resolve hook
 * looks the absent packages up from a directory with no node_modules, so Node's own "Cannot find package" error is
 * what the adapters see; nothing is uninstalled.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');

const PROGRAM = `
import { registerHooks } from 'node:module';
const absent = new Set(JSON.parse(process.env.ABSENT));
registerHooks({
  resolve: (specifier, context, next) =>
    next(specifier, absent.has(specifier) ? { ...context, parentURL: 'file:///nowhere/program.mjs' } : context),
});
let unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));
const { createGateway } = await import(process.env.SOURCE);
const gateway = createGateway({ env: {}, retry: { maxRetries: 0 }, providers: JSON.parse(process.env.PROVIDERS) });
const results = [];
for (const model of JSON.parse(process.env.MODELS)) {
  const answer = await gateway.createCompletion({ model, messages: [{ role: 'user', content: 'Hi' }] }).then(
    (completion) => ({ content: completion.choices[0].message.content }),
    (error) => ({ name: error.name, status: error.status, code: error.code, message: error.message }),
  );
  results.push({ model, ...answer });
}
// Node reports a rejection nobody handled once the microtasks of its turn have run: two turns of the loop first.
for (let turn = 0; turn < 2; turn++) await new Promise((next) => setImmediate(next));
console.log(JSON.stringify({ results, unhandled }));
`;

const CLOUDS = {
  bedrock: {
    region: 'us-east-1',
    baseURL: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'AKID', secretAccessKey: 's' },
  },
  vertex: { project: 'acme', region: 'us-east5', baseURL: 'http://127.0.0.1:9', apiKey: 'ya29.token' },
};

async function runWithout(absent: string[], models: string[], providers: object = CLOUDS) {
  const { stdout } = await promisify(execFile)(node, ['--input-type=module', '-e', PROGRAM], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: '/nonexistent',
      ABSENT: JSON.stringify(absent),
      MODELS: JSON.stringify(models),
      PROVIDERS: JSON.stringify(providers),
      SOURCE: join(root, 'src/index.ts'),
    },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    results: Array<{
      model: string;
      content?: string;
      name?: string;
      status?: number;
      code?: string;
      message?: string;
    }>;
    unhandled: string[];
  };
}

describe('optional cloud SDKs', () => {
  it('Bedrock and Claude on Vertex without their SDKs: typed errors naming the package to install', async () => {
    const { results, unhandled } = await runWithout(
      ['@aws-sdk/client-bedrock-runtime', '@anthropic-ai/vertex-sdk'],
      ['bedrock/claude-sonnet-4-5', 'vertex/claude-sonnet-4-5', 'vertex/gemini-2.5-flash'],
    );
    expect(unhandled).toEqual([]);
    // Bedrock's adapter cannot be made: the provider is not configured, as when its credentials are missing.
    expect(results[0]).toMatchObject({ name: 'MissingCredentialsError', status: 503, code: 'provider_not_configured' });
    expect(results[0]!.message).toContain('Bedrock needs the package @aws-sdk/client-bedrock-runtime');
    expect(results[0]!.message).toContain('npm install @aws-sdk/client-bedrock-runtime');
    // Vertex's Claude SDK is loaded by the first Claude call: that call fails, not retried.
    expect(results[1]).toMatchObject({ name: 'ProviderError', status: 503, code: 'provider_not_configured' });
    expect(results[1]!.message).toContain('npm install @anthropic-ai/vertex-sdk');
    // Gemini on Vertex needs neither: it reaches the (closed) endpoint and fails there.
    expect(results[2]!.code).not.toBe('provider_not_configured');
    expect(results[2]!.message).not.toContain('npm install');
  });

  it('Vertex without google-auth-library names that package', async () => {
    const { results, unhandled } = await runWithout(['google-auth-library'], ['vertex/gemini-2.5-flash']);
    expect(unhandled).toEqual([]);
    expect(results[0]).toMatchObject({ name: 'MissingCredentialsError', code: 'provider_not_configured' });
    expect(results[0]!.message).toContain('Vertex AI needs the package google-auth-library');
    expect(results[0]!.message).toContain('npm install google-auth-library');
  });
});

describe('optional provider SDKs: the wire transport needs none', () => {
  const SDKS = ['openai', '@anthropic-ai/sdk', '@google/genai'];
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
  afterAll(() => Promise.all([openai.close(), anthropic.close(), gemini.close()]));
  const providers = (transport: 'wire' | 'sdk') => ({
    openai: { apiKey: 'sk-test', baseURL: openai.url, transport },
    anthropic: { apiKey: 'sk-ant-test', baseURL: anthropic.url, transport },
    google: { apiKey: 'goog-test', baseURL: gemini.url, transport },
    azure: { apiKey: 'az-test', baseURL: openai.url, apiVersion: '2024-10-21' },
  });
  const MODELS = ['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash'];

  it('without openai, @anthropic-ai/sdk and @google/genai, OpenAI, Anthropic and Gemini answer', async () => {
    const { results, unhandled } = await runWithout(SDKS, MODELS, providers('wire'));
    expect(unhandled).toEqual([]);
    expect(results.map((result) => result.content)).toEqual([
      expect.stringMatching(/^Hello from fake gpt-4o-mini/),
      expect.stringMatching(/^Hello from fake claude-sonnet-4-5/),
      'Hello from fake gemini-2.5-flash',
    ]);
  });

  it('the SDK transport and Azure without their SDK: typed errors naming the package to install', async () => {
    const { results, unhandled } = await runWithout(SDKS, [...MODELS, 'azure/gpt-4o-mini'], providers('sdk'));
    expect(unhandled).toEqual([]);
    const packages = ['openai', '@anthropic-ai/sdk', '@google/genai', 'openai'];
    for (const [index, result] of results.entries()) {
      expect(result).toMatchObject({ status: 503, code: 'provider_not_configured' });
      expect(result.message).toContain(`needs the package ${packages[index]}`);
      expect(result.message).toContain(`npm install ${packages[index]}`);
    }
  });
});

describe('importOptional', () => {
  it('names a package Node cannot find, and leaves any other failure as it is', async () => {
    const name = 'switchyard-no-such-package';
    const missing = await importOptional(name, 'This test', () => import(name)).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MissingPackageError);
    expect((missing as MissingPackageError).packageName).toBe(name);
    expect((missing as Error).message).toContain(`npm install ${name}`);
    // A dependency of the package missing: installing the package again would not help, so it is not renamed.
    const inner = Object.assign(new Error("Cannot find package 'gaxios' imported from /x/google-auth-library/a.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const other = await importOptional('google-auth-library', 'This test', () => Promise.reject(inner)).catch(
      (error: unknown) => error,
    );
    expect(other).toBe(inner);
  });
});
