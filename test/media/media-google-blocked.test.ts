import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';

/**
 * Gemini's safety filter refusing an image or speech request answers 200 with no image or audio (a filtered finish
 * reason, or a blocked prompt). That was "the provider sent an invalid answer" (502), retried, each try paid for; it
 * is the request's refusal: a 400 `content_policy_violation` naming the reason, not retried.
 */
const gemini = await startFakeGeminiServer();
afterAll(() => gemini.close());
const gateway = createGateway({
  env: {},
  providers: { google: { apiKey: 'gemini-test', baseURL: gemini.url } },
  retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
});
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => 'answered',
    (error: unknown) => error,
  );

describe('Google media refused by its safety filter', () => {
  it('an image: 400 content_policy_violation, asked once', async () => {
    const before = gemini.requests.length;
    gemini.enqueue({ parts: [], finishReason: 'IMAGE_SAFETY' }, { parts: [], finishReason: 'IMAGE_SAFETY' });
    const error = await refusal(gateway.createImage({ model: 'gemini-2.5-flash-image', prompt: 'something' }));
    expect(error).toMatchObject({ status: 400, code: 'content_policy_violation' });
    expect((error as Error).message).toContain('IMAGE_SAFETY');
    expect(gemini.requests.length - before).toBe(1);
    gemini.reset();
  });

  it('IMAGE_OTHER (a miscellaneous failure, not the filter): retried as an answer without an image', async () => {
    gemini.enqueue({ parts: [], finishReason: 'IMAGE_OTHER' });
    const answer = await gateway.createImage({ model: 'gemini-2.5-flash-image', prompt: 'something' });
    expect(answer.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['invalid_response', 'ok']);
    gemini.reset();
  });

  it('a blocked prompt: the same, with its block reason', async () => {
    gemini.enqueue({ blockReason: 'PROHIBITED_CONTENT' });
    const error = await refusal(gateway.createImage({ model: 'gemini-2.5-flash-image', prompt: 'something' }));
    expect(error).toMatchObject({ status: 400, code: 'content_policy_violation' });
    expect((error as Error).message).toContain('PROHIBITED_CONTENT');
    gemini.reset();
  });

  it('speech: the same', async () => {
    gemini.enqueue({ parts: [], finishReason: 'SAFETY' }, { parts: [], finishReason: 'SAFETY' });
    const error = await refusal(
      gateway.createSpeech({ model: 'gemini-2.5-flash-preview-tts', input: 'something', voice: 'alloy' }),
    );
    expect(error).toMatchObject({ status: 400, code: 'content_policy_violation' });
    gemini.reset();
  });
});

describe('a Gemini image model under a budget', () => {
  it('holds its images’ tokens while it runs (1,290 output tokens an image): two at once, one passes', async () => {
    // Two images: 2 × 1,290 × $30 per 1M ≈ $0.077 held; a call is admitted while spent and held are under the
    // budget ($0.05): a second call meanwhile is refused.
    const budgeted = createGateway({
      env: {},
      providers: { google: { apiKey: 'gemini-test', baseURL: gemini.url } },
      retry: { maxRetries: 0 },
      budgets: { rules: [{ scope: 'agent', usd: 0.05, window: 'day' }] },
    });
    const image = { parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }], delayMs: 200 };
    gemini.enqueue(image, image, image, image);
    const both = await Promise.allSettled(
      [0, 1].map(() =>
        budgeted.createImage({ model: 'gemini-2.5-flash-image', prompt: 'a fjord', n: 2, metadata: { agent_id: 'a' } }),
      ),
    );
    expect(both.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const passed = both.find((result) => result.status === 'fulfilled') as PromiseFulfilledResult<{
      switchyard: { warnings: Array<{ code: string }> };
    }>;
    expect(passed.value.switchyard.warnings.map((warning) => warning.code)).not.toContain('budget_estimate_unknown');
    await budgeted.close();
    gemini.reset();
  });
});
