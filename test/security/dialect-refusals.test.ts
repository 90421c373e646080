import Anthropic from '@anthropic-ai/sdk';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchyardError } from '../../src/errors.ts';
import { createGateway } from '../../src/gateway.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';
import { send } from './dialect-bodies.ts';

/**
 * What Anthropic refuses, the Messages API here refuses too: a system role inside `messages`, a message without a
 * role, `max_tokens` above what the model can write (in process and over HTTP, in Anthropic's shape). And a
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
  it('a system role inside messages, and a message without a role', async () => {
    const system = await refusal(
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ role: 'system' as never, content: 'Be brief.' }],
      }),
    );
    expect(system.status).toBe(400);
    expect(system.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(system.error.error.message).toMatch(/^messages\[0\]\.role: .*top-level "system"/);
    const roleless = await refusal(
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ content: 'Hi' } as never],
      }),
    );
    expect(roleless.status).toBe(400);
    expect(roleless.error.error.message).toMatch(/^messages\[0\]\.role: Field required/);
  });

  it('max_tokens above the model’s limit, over HTTP in Anthropic’s shape', async () => {
    // Raw HTTP: Anthropic's SDK will not send a large max_tokens without streaming.
    const messages = [{ role: 'user', content: 'Hi' }];
    const over = await send(server, 'messages', { model: 'claude-haiku-4-5', max_tokens: 64_001, messages });
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text)).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for ' +
          'claude-haiku-4-5-20251001.',
      },
    });
    const atLimit = await send(server, 'messages', { model: 'claude-haiku-4-5', max_tokens: 64_000, messages });
    expect(atLimit.status).toBe(200);
  });

  it('max_tokens above the model’s limit, in process, whatever form names the model', async () => {
    const gateway = createGateway({ mock: true, env: {} });
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    for (const model of ['gpt-4o-latest', 'openai/gpt-4o-2024-11-20', 'my-agent/gpt-4o-latest']) {
      const error = await gateway.createMessage({ model, max_tokens: 1_000_000, messages }).catch((e: unknown) => e);
      expect(error, model).toBeInstanceOf(SwitchyardError);
      expect(error).toMatchObject({ status: 400, param: 'max_tokens' });
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
