import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * The model reads more than the messages: a tool's description and parameters, a response format's schema, a
 * predicted output. Values in them are masked (or the call refused under `block`) as in the messages: before, a
 * caller held to `block` could send a card number to the provider in a tool's description.
 */
const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';
let openai: FakeOpenAIServer;
let gateway: Gateway;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  gateway = createGateway({
    providers: { openai: { apiKey: 'sk-test-provider-key', baseURL: openai.url } },
    retry: { maxRetries: 0 },
    sensitiveData: 'mask',
  });
});
afterAll(async () => {
  await gateway.close();
  await openai.close();
});
beforeEach(() => {
  openai.requests.length = 0;
});

const request = {
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'Use the tool for bob@example.org.' }],
  tools: [
    {
      type: 'function' as const,
      function: {
        name: 'refund',
        description: `Refund ${EMAIL} on card ${CARD}.`,
        parameters: {
          type: 'object',
          properties: { account: { type: 'string', description: `Always ${EMAIL}`, enum: [EMAIL, 'other'] } },
        },
      },
    },
  ],
  response_format: {
    type: 'json_schema' as const,
    json_schema: { name: 'answer', description: `For ${EMAIL}`, schema: { type: 'object', title: CARD } },
  },
  prediction: { type: 'content' as const, content: `Dear ${EMAIL},` },
};

describe('sensitive data beyond the messages', () => {
  it('mask: tools, the response format and the prediction reach the provider masked', async () => {
    openai.enqueue({ content: '{}' });
    const response = await gateway.createCompletion(request);
    const sent = JSON.stringify(openai.requests[0]!.body);
    expect(sent).not.toContain(EMAIL);
    expect(sent).not.toContain(CARD);
    // The tools first, as the prompt has them: their placeholders do not move with what the messages hold.
    expect(sent).toContain('Refund [EMAIL_1] on card [CARD_1].');
    expect(openai.requests[0]!.body.messages[0].content).toBe('Use the tool for [EMAIL_2].');
    expect(openai.requests[0]!.body.tools[0].function.name).toBe('refund');
    expect(response.switchyard.sensitive_data).toEqual({ mode: 'mask', found: { email: 6, card: 2 } });
    const warning = response.switchyard.warnings.find((item) => item.code === 'sensitive_data_masked');
    expect(warning?.param).toBe('tools, prediction, response_format, messages');
  });

  it('block: a value in a tool’s description refuses the call, and nothing is sent', async () => {
    const refused = await gateway
      .createCompletion({
        model: request.model,
        messages: [{ role: 'user', content: 'Use the tool.' }],
        tools: request.tools,
        sensitive_data: 'block',
      })
      .catch((error: unknown) => error);
    // Named where it was: a caller looking in its messages would find nothing.
    expect(refused).toMatchObject({ status: 400, code: 'sensitive_data_blocked', param: 'tools' });
    expect(openai.requests).toHaveLength(0);
  });
});
