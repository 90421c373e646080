import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, ProviderError } from '../../src/index.ts';
import { type RawAnswerServer, startRawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import { catalog, KEYS, MODELS, type ProviderName, rejection } from '../reliability/harness.ts';

/**
 * Negative usage from a provider used to be billed as $0 (each count floored at 0), or, spread over
 * parts, as less than the call cost: a budget could be walked down by a provider's bug. Now it is an invalid answer,
 * `ProviderError` 502 `invalid_response`, for each provider family, whole answers and streams alike.
 */
const openaiAnswer = (usage: unknown) => ({
  id: 'chatcmpl-x',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: MODELS.openai,
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, logprobs: null, finish_reason: 'stop' }],
  usage,
});
const anthropicAnswer = (usage: unknown) => ({
  id: 'msg_x',
  type: 'message',
  role: 'assistant',
  model: MODELS.anthropic,
  content: [{ type: 'text', text: 'hi' }],
  stop_reason: 'end_turn',
  usage,
});
const geminiAnswer = (usageMetadata: unknown) => ({
  responseId: 'g-x',
  candidates: [{ index: 0, finishReason: 'STOP', content: { role: 'model', parts: [{ text: 'hi' }] } }],
  usageMetadata,
});

const NEGATIVE: Array<[ProviderName, unknown, RegExp]> = [
  ['openai', openaiAnswer({ prompt_tokens: -1_000_000, completion_tokens: 2, total_tokens: 5 }), /prompt_tokens/],
  [
    'openai',
    openaiAnswer({
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
      prompt_tokens_details: { cached_tokens: -3 },
    }),
    /cached_tokens/,
  ],
  ['anthropic', anthropicAnswer({ input_tokens: 3, output_tokens: -2 }), /output_tokens/],
  ['anthropic', anthropicAnswer({ input_tokens: 3, output_tokens: 2, cache_read_input_tokens: -9 }), /cache_read/],
  ['google', geminiAnswer({ promptTokenCount: -3, candidatesTokenCount: 2 }), /promptTokenCount/],
  ['google', geminiAnswer({ promptTokenCount: 3, candidatesTokenCount: 2, thoughtsTokenCount: -1 }), /thoughts/],
];

let raw: RawAnswerServer;
let gateway: Gateway;
beforeAll(async () => {
  raw = await startRawAnswerServer();
  gateway = createGateway({
    catalog,
    env: {},
    providers: {
      openai: { apiKey: KEYS.openai, baseURL: `${raw.origin}/v1` },
      anthropic: { apiKey: KEYS.anthropic, baseURL: raw.origin },
      google: { apiKey: KEYS.google, baseURL: raw.origin },
    },
    retry: { maxRetries: 0 },
  });
});
afterAll(async () => {
  await gateway.close();
  await raw.close();
});

describe('negative usage is an invalid answer', () => {
  it.each(NEGATIVE)('%s: %#', async (provider, body, field) => {
    raw.enqueue({ json: JSON.stringify(body) });
    const error = await rejection(
      gateway.createCompletion({ model: MODELS[provider], messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 502, code: 'invalid_response', provider });
    expect(error.message).toMatch(field);
    expect(error.message).toMatch(/must be a count ≥ 0/);
  });

  it('in a stream too (OpenAI usage chunk)', async () => {
    const chunk = (fields: object) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}`;
    raw.enqueue({
      events: [
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }),
        chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: -2, total_tokens: 1 } }),
        'data: [DONE]',
      ],
    });
    const error = await rejection(
      (async () => {
        const stream = await gateway.createCompletion({
          model: MODELS.openai,
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
        });
        for await (const _ of stream);
      })(),
    );
    expect(error).toMatchObject({ status: 502, code: 'invalid_response' });
    expect(error.message).toMatch(/completion_tokens must be a count ≥ 0/);
  });

  it('a zero count is fine', async () => {
    raw.enqueue({ json: JSON.stringify(openaiAnswer({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })) });
    const response = await gateway.createCompletion({
      model: MODELS.openai,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.switchyard.cost_usd).toBe(0);
  });
});
