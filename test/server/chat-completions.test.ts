import OpenAI, { type APIError } from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type CompletionChunk, createGateway } from '../../src/index.ts';
import type { ProviderCall } from '../../src/providers/provider.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
});
afterAll(async () => {
  await test.stop();
});

const messages = [{ role: 'user' as const, content: 'Name three rivers of Europe.' }];

/** The structure of a value: the same keys and value types, whatever the values. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shape(entry)]));
  return value === null ? 'null' : typeof value;
}

describe('POST /v1/chat/completions with the openai SDK', () => {
  it('answers a plain completion, with the call id and the simulator header', async () => {
    const { data, response } = await test
      .openai()
      .chat.completions.create({ model: 'gpt-4o-latest', messages })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.content).toContain('Name three rivers of Europe.');
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    const info = (data as unknown as { switchyard: { call_id: string; provider: string } }).switchyard;
    expect(info.provider).toBe('mock');
    expect(response.headers.get('x-switchyard-call-id')).toBe(info.call_id);
    expect(response.headers.get('x-switchyard-mock')).toBe('true');
  });

  it('streams chunks of the same shape and text as the in-process stream', async () => {
    const request = {
      model: 'claude-sonnet-4-5',
      messages,
      stream: true as const,
      stream_options: { include_usage: true },
    };
    const { data: stream, response } = await test.openai().chat.completions.create(request).withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-switchyard-call-id')).toMatch(/^[0-9a-f-]{36}$/);
    const overHttp: unknown[] = [];
    for await (const chunk of stream) overHttp.push(chunk);

    const inProcess: unknown[] = [];
    for await (const chunk of await createGateway({ mock: true }).createCompletion(request)) inProcess.push(chunk);

    expect(overHttp.length).toBeGreaterThan(2);
    expect(overHttp.map(shape)).toEqual(inProcess.map(shape));
    const text = (chunks: unknown[]) =>
      (chunks as OpenAI.ChatCompletionChunk[]).map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text(overHttp)).toBe(text(inProcess));
  });

  it('sends each SSE event as data: {json} and ends with data: [DONE]', async () => {
    const response = await api(test, '/v1/chat/completions', {
      body: { model: 'gpt-4o-latest', messages, stream: true },
    });
    const body = await response.text();
    const events = body.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    for (const event of events.slice(0, -1))
      expect(JSON.parse(event.replace(/^data: /, '')).object).toBe('chat.completion.chunk');
  });

  it('parses structured output with chat.completions.parse and zodResponseFormat', async () => {
    const Rivers = z.object({
      rivers: z.array(z.object({ name: z.string(), length_km: z.number() })),
      continent: z.enum(['europe', 'asia']),
    });
    const completion = await test.openai().chat.completions.parse({
      model: 'gemini-2.5-flash',
      messages,
      response_format: zodResponseFormat(Rivers, 'rivers'),
    });
    const parsed = completion.choices[0]!.message.parsed;
    expect(parsed).not.toBeNull();
    expect(Rivers.parse(parsed)).toEqual(parsed);
  });

  it('turns a validation error into a 400 with its param', async () => {
    const error = await test
      .openai()
      .chat.completions.create({ model: 'gpt-4o-latest', messages, temperature: 5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).param).toBe('temperature');
    expect((error as APIError).type).toBe('invalid_request_error');
  });

  it('answers an unknown model with 404 model_not_found', async () => {
    const error = await test
      .openai()
      .chat.completions.create({ model: 'gpt-4o-latset', messages })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as APIError).code).toBe('model_not_found');
    expect((error as APIError).message).toContain('Did you mean');
  });

  it('refuses a missing, an unknown and a revoked key with 401 invalid_api_key', async () => {
    const missing = await api(test, '/v1/chat/completions', { body: { model: 'gpt-4o-latest', messages }, key: null });
    expect(missing.status).toBe(401);
    expect(await jsonOf(missing)).toEqual({
      error: {
        message: expect.stringContaining('API key'),
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });

    const invalid = await test
      .openai('sy-not-a-real-key')
      .chat.completions.create({ model: 'gpt-4o-latest', messages })
      .catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((invalid as APIError).code).toBe('invalid_api_key');

    const { key, info } = await test.server.keys.create('to revoke');
    const before = await test.openai(key).chat.completions.create({ model: 'gpt-4o-latest', messages });
    expect(before.choices[0]!.message.content).toContain('Simulated reply from gpt-4o');
    await test.server.keys.revoke(info.prefix);
    const revoked = await test
      .openai(key)
      .chat.completions.create({ model: 'gpt-4o-latest', messages })
      .catch((caught: unknown) => caught);
    expect(revoked).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((revoked as APIError).message).toContain('revoked');
  });

  it('answers invalid JSON with 400 and a body over the limit with 413', async () => {
    const invalid = await api(test, '/v1/chat/completions', { body: '{"model": "gpt-4o-latest",' });
    expect(invalid.status).toBe(400);
    expect((await jsonOf(invalid)).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });

    const huge = await api(test, '/v1/chat/completions', {
      body: { model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }] },
    });
    expect(huge.status).toBe(413);
    expect((await jsonOf(huge)).error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
    // The connection survives the refused upload.
    expect((await api(test, '/v1/models')).status).toBe(200);
  });

  it('refuses a chunked upload that grows past the limit', async () => {
    const small = await startTestServer({ maxBodyBytes: 1024 });
    try {
      const chunks = new ReadableStream({
        start(controller) {
          for (let index = 0; index < 8; index++) controller.enqueue(new TextEncoder().encode(`${'y'.repeat(500)}`));
          controller.close();
        },
      });
      const response = await fetch(`${small.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${small.key}` },
        body: chunks,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
    } finally {
      await small.stop();
    }
  });

  it('answers an unknown route with 404 and a wrong method with 405', async () => {
    const unknown = await api(test, '/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect((await jsonOf(unknown)).error.code).toBe('unknown_url');
    const wrongMethod = await api(test, '/v1/chat/completions');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it('aborts the call when the client goes away mid-stream, and records it', async () => {
    const slow = new SlowStreamMock();
    const server = await startTestServer({ mock: slow });
    try {
      const controller = new AbortController();
      const stream = await server.openai().chat.completions.create(
        {
          model: 'gpt-4o-latest',
          messages: [{ role: 'user', content: 'long '.repeat(100) }],
          stream: true,
          metadata: { agent_id: 'leaver' },
        },
        { signal: controller.signal },
      );
      for await (const _chunk of stream) {
        controller.abort();
        break;
      }
      const { gateway } = server.server;
      await expect
        .poll(async () => (await gateway.flush(), (await gateway.calls.list({ agent_id: 'leaver' })).data.length), {
          timeout: 5000,
        })
        .toBe(1);
      // The provider stream was stopped early, not read to its end.
      expect(slow.yielded).toBeLessThan(10);
      expect(server.logs.find((line) => line.msg === 'request' && line.path === '/v1/chat/completions')).toMatchObject({
        aborted: true,
      });
    } finally {
      await server.stop();
    }
  });
});

/**
 * The simulator, counting the chunks it produced: once one carried text it produces the next only when the call is
 * aborted (then none), as a provider still writing when its caller leaves. No abort, no end: a hang the test's bound
 * catches.
 */
class SlowStreamMock extends MockProvider {
  yielded = 0;
  override async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const chunks = await super.stream(call);
    const self = this;
    const aborted = new Promise<void>((resolve) => {
      if (call.signal?.aborted) resolve();
      call.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    let spoke = false;
    return (async function* slowly() {
      for await (const chunk of chunks) {
        if (spoke) await aborted;
        if (call.signal?.aborted) return;
        self.yielded += 1;
        spoke ||= Boolean(chunk.choices[0]?.delta.content);
        yield chunk;
      }
    })();
  }
}
