import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * A request's own `sensitive_data` is taken by embeddings as by chat and media (docs/teams.md: "in every dialect"):
 * it was refused as an unknown parameter, so a caller could not ask for masking where the gateway had none.
 */
const openai = await useFakeOpenAIServer();
const gateway = createGateway({ env: {}, providers: { openai: { apiKey: 'sk-test', baseURL: openai.url } } });
afterAll(() => gateway.close());

describe('an embeddings request’s own sensitive_data', () => {
  it('mask: the provider gets the placeholder; block: refused before any request', async () => {
    const before = openai.requests.length;
    const masked = await gateway.createEmbedding({
      model: 'text-embedding-3-small',
      input: 'write to jane.doe@example.com',
      sensitive_data: 'mask',
    });
    expect(masked.switchyard.sensitive_data).toEqual({ mode: 'mask', found: { email: 1 } });
    expect(JSON.stringify(openai.requests.at(-1)?.body)).not.toContain('jane.doe@example.com');
    const blocked = await gateway
      .createEmbedding({ model: 'text-embedding-3-small', input: 'jane.doe@example.com', sensitive_data: 'block' })
      .catch((error: unknown) => error);
    expect(blocked).toMatchObject({ status: 400, code: 'sensitive_data_blocked' });
    expect(openai.requests.length - before).toBe(1);
    const wrong = await gateway
      .createEmbedding({ model: 'text-embedding-3-small', input: 'x', sensitive_data: 'hide' as never })
      .catch((error: unknown) => error);
    expect(wrong).toMatchObject({ status: 400, param: 'sensitive_data' });
  });
});
