import { describe, expect, it } from 'vitest';
import {
  type CatalogData,
  type ErrorClassifier,
  errorMapper,
  fromStatus,
  type Provider,
  type ProviderDefinition,
  unreachable,
} from '../../src/entries/providers.ts';
import { Catalog, createGateway } from '../../src/index.ts';

/**
 * A provider written outside the package classifies its failures over the exported skeleton, as the built-in ones
 * do: its classifier says which shared error a failure is; the skeleton redacts the key and tells the caller's abort
 * apart.
 */
const KEY = 'acme-secret-key-0123456789';
let failures = 1;

/** ACME's client throws `{ status, message }` for an HTTP error, anything else for a network failure. */
const classifyAcme: ErrorClassifier = (error, scope) => {
  const failure = error as { status?: number; message?: string };
  return typeof failure.status === 'number'
    ? fromStatus(scope, failure.status, failure.message ?? 'no message', { cause: error })
    : unreachable(scope, error);
};

const acme: ProviderDefinition = {
  id: 'acme',
  envPrefix: 'ACME',
  defaultBaseURL: 'https://api.acme.example',
  requiresApiKey: true,
  capabilities: { nativeOutput: () => false },
  create: async (settings): Promise<Provider> => {
    const errors = errorMapper('acme', settings, classifyAcme);
    return {
      name: 'acme',
      complete: async (call) => {
        try {
          if (failures-- > 0) throw { status: 503, message: `overloaded (key ${settings.apiKey})` };
        } catch (error) {
          throw errors.map(error, call.body.model, { signal: call.signal });
        }
        return {
          id: 'acme-1',
          object: 'chat.completion',
          created: 1,
          model: call.body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'hi', refusal: null },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
        };
      },
      stream: async () => {
        throw new Error('not streamed in this test');
      },
    };
  },
};

const catalog = new Catalog({ updated: '2026-11-23', models: [], aliases: {}, synonyms: {} } satisfies CatalogData);

describe('an outside provider on the exported error skeleton', () => {
  it('has its failure classified, retried and redacted like a built-in one', async () => {
    const gateway = createGateway({
      catalog,
      env: {},
      retry: { initialDelayMs: 1 },
      providers: { acme: { definition: acme, apiKey: KEY } },
    });
    const response = await gateway.createCompletion({
      model: 'acme/large-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const [failed, answered] = response.switchyard.attempts;
    expect(failed).toMatchObject({ provider: 'acme', outcome: 'server_error' });
    expect(failed!.message).toContain('acme (large-1) answered 503: overloaded (key [redacted])');
    expect(answered).toMatchObject({ outcome: 'ok' });
  });
});
