import { afterAll, afterEach } from 'vitest';
import { createGateway, type GatewayOptions } from '../../src/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { testCatalog } from './test-catalog.ts';

/** A gateway on the test catalog whose every OpenAI-family provider points at one fake server. */
export function gatewayAgainst(url: string, options: GatewayOptions = {}) {
  const providers = Object.fromEntries(
    ['openai', 'groq', 'xai', 'deepseek', 'mistral', 'together', 'fireworks', 'openrouter', 'ollama'].map((name) => [
      name,
      { apiKey: `test-key-${name}`, baseURL: url },
    ]),
  );
  return createGateway({
    catalog: testCatalog,
    env: {},
    providers,
    retry: { initialDelayMs: 1, maxDelayMs: 20 },
    ...options,
  });
}

/**
 * A fake OpenAI server for a test file (`const server = await useFakeOpenAIServer();` at its top): closed after the
 * file, its recorded requests cleared after each test.
 */
export async function useFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const server = await startFakeOpenAIServer();
  afterAll(() => server.close());
  afterEach(() => {
    server.requests.length = 0;
  });
  return server;
}
