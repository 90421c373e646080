import Anthropic from '@anthropic-ai/sdk';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';
import { send } from './dialect-bodies.ts';

/**
 * What Anthropic refuses, the Messages API here refuses too: a message without a role. What Claude Code sends is
 * taken: `max_tokens` above what the model can write is lowered to its limit (in process and over HTTP). And a
 * streamed Responses answer echoes its `instructions` once, in the final response, not in every snapshot.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mock: true });
});
afterAll(() => server.stop());

const anthropic = () => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as { status: number; error: { type: string; error: { type: string; message: string } } },
  );

describe('/v1/messages refuses what Anthropic refuses', () => {
  it('a message without a role', async () => {
    const roleless = await refusal(
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ content: 'Hi' } as never],
      }),
    );
    expect(roleless.status).toBe(400);
    expect(roleless.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(roleless.error.error.message).toMatch(/^messages\[0\]\.role: Field required/);
  });
});

describe('/v1/messages takes what Claude Code sends (issue 35)', () => {
  it('max_tokens above the model’s limit is lowered to it, over HTTP', async () => {
    // Raw HTTP: Anthropic's SDK will not send a large max_tokens without streaming.
    const messages = [{ role: 'user', content: 'Hi' }];
    const over = await send(server, 'messages', { model: 'claude-haiku-4-5', max_tokens: 64_001, messages });
    expect(over.status).toBe(200);
    expect(JSON.parse(over.text).switchyard.warnings).toContainEqual({
      code: 'converted_parameter',
      param: 'max_tokens',
      message: 'claude-haiku-4-5-20251001 writes at most 64000 tokens; max_tokens 64001 was lowered to it.',
    });
    const atLimit = await send(server, 'messages', { model: 'claude-haiku-4-5', max_tokens: 64_000, messages });
    expect(JSON.parse(atLimit.text).switchyard.warnings).toEqual([]);
  });

  it('max_tokens above the model’s limit, in process, whatever form names the model', async () => {
    const gateway = createGateway({ mock: true, env: {} });
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    for (const model of ['gpt-4o-latest', 'openai/gpt-4o-2024-11-20', 'my-agent/gpt-4o-latest']) {
      const message = await gateway.createMessage({ model, max_tokens: 1_000_000, messages, stream: true });
      for await (const _ of message);
      expect(message.switchyard.warnings, model).toContainEqual(
        expect.objectContaining({ code: 'converted_parameter', param: 'max_tokens' }),
      );
    }
    const fine = await gateway.createMessage({ model: 'gpt-4o-latest', max_tokens: 1_000, messages });
    expect(fine.content[0]).toMatchObject({ type: 'text' });
  });
});

describe('a streamed Responses answer', () => {
  it('echoes its instructions once, in the final response, as the answer without streaming does', async () => {
    const instructions = `Be brief. ${'Context. '.repeat(2_000)}`;
    const stream = await server
      .openai()
      .responses.create({ model: 'gpt-4o-latest', input: 'Hi', instructions, stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const withResponse = events.filter((event) => 'response' in event) as Array<{
      type: string;
      response: { instructions: unknown; tools: unknown };
    }>;
    expect(withResponse.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.completed',
    ]);
    expect(withResponse.map((event) => event.response.instructions)).toEqual([null, null, instructions]);
    const plain = await server.openai().responses.create({ model: 'gpt-4o-latest', input: 'Hi', instructions });
    expect(plain.instructions).toBe(instructions);
  });
});
