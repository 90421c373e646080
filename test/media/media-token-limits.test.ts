import { describe, expect, it } from 'vitest';
import { createGateway, LimitExceededError } from '../../src/index.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * A media call billed in tokens counts them against a tokens-a-minute limit as a completion does: the fake OpenAI
 * server reports 50 text tokens in and 1,056 image tokens out for each image (1,106 a call).
 */
const server = await useFakeOpenAIServer();
const providers = { openai: { apiKey: 'sk-fake', baseURL: server.url } };

describe('a tokens-a-minute limit', () => {
  it('counts an image call’s tokens: the call after the limit is refused with 429', async () => {
    const gateway = createGateway({
      env: {},
      providers,
      retry: { maxRetries: 0 },
      budgets: { rules: [{ scope: 'agent', tokens: 2_000, window: 'minute' }] },
    });
    const ask = { model: 'gpt-image-1-mini', prompt: 'a kite', quality: 'low' as const, metadata: { agent_id: 'a' } };
    try {
      await gateway.createImage(ask);
      await gateway.createImage(ask);
      const error = await gateway.createImage(ask).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(LimitExceededError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    } finally {
      await gateway.close();
    }
  });

  it('records the tokens a media call was billed for as its usage', async () => {
    const gateway = createGateway({ env: {}, providers, retry: { maxRetries: 0 } });
    try {
      const answer = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'a kite', quality: 'low' });
      await gateway.flush();
      const record = (await gateway.calls.list({ limit: 10 })).data.find(
        (each) => each.id === answer.switchyard.call_id,
      );
      expect(record?.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 1056 });
    } finally {
      await gateway.close();
    }
  });
});
