import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/cli/config-file.ts';
import { createGateway } from '../../src/index.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * A provider's extra `headers` often carry a credential (a proxy's token, a second key): the config file reads them
 * from the environment like its keys (`{ env: NAME }`), and an error quoting one never shows it.
 */
const openai = await startFakeOpenAIServer();
const dir = mkdtempSync(join(tmpdir(), 'switchyard-header-secrets-'));
afterAll(async () => {
  await openai.close();
  rmSync(dir, { recursive: true, force: true });
});
const hello = [{ role: 'user' as const, content: 'Hello' }];

describe("a provider's headers are secrets", () => {
  it('an error quoting a header value shows it redacted', async () => {
    const gateway = createGateway({
      env: {},
      retry: { maxRetries: 0 },
      providers: {
        openai: { apiKey: 'sk-test', baseURL: openai.url, headers: { 'x-proxy-token': 'proxy-token-0123456789' } },
      },
    });
    openai.enqueue({ error: { status: 400, message: 'token proxy-token-0123456789 is not allowed for this model' } });
    const error = await gateway
      .createCompletion({ model: 'openai/gpt-4o-mini', messages: hello })
      .catch((thrown: unknown) => thrown);
    expect(openai.requests.at(-1)?.headers['x-proxy-token']).toBe('proxy-token-0123456789');
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('proxy-token-0123456789');
  });

  it("a credential's token is redacted alone too; a header naming a feature is left to explain the error", async () => {
    const gateway = createGateway({
      env: {},
      retry: { maxRetries: 0 },
      providers: {
        openai: {
          apiKey: 'sk-test',
          baseURL: openai.url,
          headers: { 'cf-aig-authorization': 'Bearer gateway-token-987654', 'openai-beta': 'assistants=v2' },
        },
      },
    });
    openai.enqueue({
      error: { status: 401, message: 'gateway-token-987654 is not valid; openai-beta assistants=v2 is not supported' },
    });
    const error = await gateway
      .createCompletion({ model: 'openai/gpt-4o-mini', messages: hello })
      .catch((thrown: unknown) => thrown);
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).not.toContain('gateway-token-987654');
    expect(text).toContain('assistants=v2 is not supported');
  });

  it('serve --config reads a header written { env: NAME } from the environment', () => {
    const file = join(dir, 'headers.yaml');
    writeFileSync(
      file,
      'providers:\n  openai:\n    api_key: { env: OPENAI_KEY }\n' +
        '    headers:\n      x-proxy-token: { env: PROXY_TOKEN }\n      x-title: Acme\n',
      { mode: 0o600 },
    );
    const settings = loadConfigFile(file, { OPENAI_KEY: 'sk-file', PROXY_TOKEN: 'from-the-environment' });
    expect(settings.providers?.openai?.headers).toEqual({
      'x-proxy-token': 'from-the-environment',
      'x-title': 'Acme',
    });
    expect(() => loadConfigFile(file, { OPENAI_KEY: 'sk-file' })).toThrow(
      /providers\.openai\.headers\.x-proxy-token names the environment variable PROXY_TOKEN, which is not set/,
    );
  });
});
