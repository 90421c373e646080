import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompletionStream, createGateway, type Gateway, ProviderError } from '../../src/index.ts';
import { type RawAnswerServer, startRawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import { catalog, guardUnhandledRejections, KEYS, MODELS, rejection } from './harness.ts';
import { type ServeRig, startServeRig } from './serve-harness.ts';

/**
 * The malformed answers found by testing from outside, one by one: each once killed the process on the next tick,
 * answered a bare 500 without a call id, or was retried as a connection error. Each is now a `ProviderError` 502
 * `invalid_response` with the attempt chain and the call id, retried like a 5xx, and recorded.
 */
guardUnhandledRejections();

const envelope = { id: 'chatcmpl-x', object: 'chat.completion', created: 1_760_000_000, model: 'gpt-4o' };
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const choice = (message: unknown) => ({ index: 0, message, logprobs: null, finish_reason: 'stop' });

const MALFORMED: Array<[label: string, body: unknown, problem: RegExp]> = [
  [
    'a choice without message',
    { ...envelope, choices: [{ index: 0, finish_reason: 'stop' }], usage },
    /choices\[0\]\.message must be an object/,
  ],
  [
    'message: null',
    { ...envelope, choices: [choice(null)], usage },
    /choices\[0\]\.message must be an object, got null/,
  ],
  [
    'tool_calls that is not an array',
    { ...envelope, choices: [choice({ role: 'assistant', content: null, tool_calls: 'lookup' })], usage },
    /tool_calls must be an array/,
  ],
  [
    'tool_calls: [null]',
    { ...envelope, choices: [choice({ role: 'assistant', content: null, tool_calls: [null] })], usage },
    /tool_calls\[0\] must be an object/,
  ],
  [
    'usage: "lots"',
    { ...envelope, choices: [choice({ role: 'assistant', content: 'hi' })], usage: 'lots' },
    /usage must be an object/,
  ],
  ['{"id":"x"} without choices', { id: 'x' }, /choices must be an array/],
];

let raw: RawAnswerServer;
let gateway: Gateway;
beforeAll(async () => {
  raw = await startRawAnswerServer();
  gateway = createGateway({
    catalog,
    env: {},
    providers: { openai: { apiKey: KEYS.openai, baseURL: `${raw.origin}/v1` } },
    retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
  });
});
afterAll(async () => {
  await gateway.close();
  await raw.close();
});

describe('malformed OpenAI answers, in process', () => {
  it.each(MALFORMED)(
    '%s: a retried 502 invalid_response with the attempt chain, the call id and a record',
    async (_label, body, problem) => {
      raw.enqueue(...Array.from({ length: 3 }, () => ({ json: JSON.stringify(body) })));
      const error = await rejection(
        gateway.createCompletion({ model: MODELS.openai, messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ status: 502, code: 'invalid_response', type: 'api_error', retryable: true });
      expect(error.message).toMatch(problem);
      expect(error.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual([
        'invalid_response',
        'invalid_response',
        'invalid_response',
      ]);
      expect(error.callId).toEqual(expect.any(String));
      await gateway.flush();
      const record = (await gateway.calls.list({ limit: 1 })).data[0]!;
      expect(record).toMatchObject({
        id: error.callId,
        status: 'error',
        error: { code: 'invalid_response', status: 502 },
      });
    },
  );

  it('a bad answer followed by a good one is answered by the retry', async () => {
    raw.enqueue(
      { json: JSON.stringify({ id: 'x' }) },
      { json: JSON.stringify({ ...envelope, choices: [choice({ role: 'assistant', content: 'fine' })], usage }) },
    );
    const response = await gateway.createCompletion({
      model: MODELS.openai,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.choices[0]!.message.content).toBe('fine');
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['invalid_response', 'ok']);
  });

  it('a stream chunk with delta: null ends the stream with a typed error, not a TypeError', async () => {
    const chunk = (delta: unknown, finish: string | null = null) => {
      const choices = [{ index: 0, delta, finish_reason: finish }];
      return `data: ${JSON.stringify({ ...envelope, object: 'chat.completion.chunk', choices })}`;
    };
    const events = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk(null),
      chunk({}, 'stop'),
      'data: [DONE]',
    ];
    raw.enqueue({ events });
    const stream = await gateway.createCompletion({
      model: MODELS.openai,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    expect(stream).toBeInstanceOf(CompletionStream);
    const error = await rejection(
      (async () => {
        for await (const _chunk of stream) {
          /* drain */
        }
      })(),
    );
    expect(error).toMatchObject({ name: 'StreamInterruptedError', status: 502, code: 'invalid_response' });
    expect(error.message).toMatch(/choices\[0\]\.delta must be an object, got null/);
  });
});

describe('malformed OpenAI answers, through switchyard serve', () => {
  let rig: ServeRig;
  beforeAll(async () => {
    rig = await startServeRig(undefined, {
      gateway: {
        catalog,
        env: {},
        providers: { openai: { apiKey: KEYS.openai, baseURL: `${raw.origin}/v1` } },
        retry: { maxRetries: 0 },
      },
    });
  });
  afterAll(async () => {
    await rig.stop();
  });

  it.each(MALFORMED)(
    '%s: the client gets a 502 invalid_response with the call id, and the server keeps serving',
    async (_label, body) => {
      raw.enqueue({ json: JSON.stringify(body) });
      const client = rig.openai();
      const error = await rejection(
        client.chat.completions.create({ model: MODELS.openai, messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(502);
      expect(error.code).toBe('invalid_response');
      expect(error.headers.get('x-switchyard-call-id')).toEqual(expect.any(String));
      raw.enqueue({
        json: JSON.stringify({ ...envelope, choices: [choice({ role: 'assistant', content: 'still here' })], usage }),
      });
      const next = await client.chat.completions.create({
        model: MODELS.openai,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(next.choices[0]!.message.content).toBe('still here');
    },
  );
});
