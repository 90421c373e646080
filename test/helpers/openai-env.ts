import { createGateway, type GatewayOptions } from '../../src/index.ts';
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
