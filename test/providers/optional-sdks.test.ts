import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { importOptional, MissingPackageError } from '../../src/internal/optional-package.ts';

/**
 * The cloud SDKs are optional dependencies: a program without one still runs, and a call that needs it fails with a
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
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 0 },
  providers: {
    bedrock: {
      region: 'us-east-1',
      baseURL: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 's' },
    },
    vertex: { project: 'acme', region: 'us-east5', baseURL: 'http://127.0.0.1:9', apiKey: 'ya29.token' },
  },
});
const results = [];
for (const model of JSON.parse(process.env.MODELS)) {
  const error = await gateway.createCompletion({ model, messages: [{ role: 'user', content: 'Hi' }] }).catch((e) => e);
  results.push({ model, name: error.name, status: error.status, code: error.code, message: error.message });
}
await new Promise((done) => setTimeout(done, 50));
console.log(JSON.stringify({ results, unhandled }));
`;

async function runWithout(absent: string[], models: string[]) {
  const { stdout } = await promisify(execFile)(node, ['--input-type=module', '-e', PROGRAM], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: '/nonexistent',
      ABSENT: JSON.stringify(absent),
      MODELS: JSON.stringify(models),
      SOURCE: join(root, 'src/index.ts'),
    },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    results: Array<{ model: string; name: string; status: number; code: string; message: string }>;
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
