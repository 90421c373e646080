import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryDeploymentStore } from '../../src/deployments/index.ts';
import { createGateway, type Gateway } from '../../src/index.ts';
import type { CallRecord } from '../../src/records/call-record.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * Masking through the public API against the fake OpenAI server: what the server receives and what the record keeps
 * hold none of the raw values, plain and streamed, whether the value came in a message, a tool result or a
 * deployment's input.
 */
const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';
const SECRET = 'sk-proj-AbCdEf0123456789GhIjKlMnOp';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const RAW = [EMAIL, CARD, '4111111111111111', SECRET, IBAN];

let openai: FakeOpenAIServer;
let gateway: Gateway;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  const triage = makeDeployment(
    { id: 'support-triage' },
    { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Ticket from {{customer}}: {{ticket}}' }] },
  );
  const strict = makeDeployment({ id: 'payments' }, { model: 'openai/gpt-4o-mini', sensitive_data: 'block' });
  gateway = createGateway({
    providers: { openai: { apiKey: 'sk-test-provider-key', baseURL: openai.url } },
    retry: { maxRetries: 0 },
    sensitiveData: 'mask',
    deployments: new MemoryDeploymentStore([triage, strict]),
  });
});
afterAll(async () => {
  await gateway.close();
  await openai.close();
});
beforeEach(() => {
  openai.requests.length = 0;
});

const prompt = `Refund ${EMAIL}, card ${CARD}; the key was ${SECRET}. Again: ${EMAIL}.`;

function expectNoRawValue(text: string): void {
  for (const value of RAW) expect(text).not.toContain(value);
}

async function recordOf(callId: string): Promise<CallRecord> {
  await gateway.flush();
  const record = (await gateway.calls.get?.(callId)) ?? null;
  expect(record).not.toBeNull();
  return record!;
}

describe('mask', () => {
  it('the provider receives placeholders, the same value the same one, and the record holds counts only', async () => {
    openai.enqueue({ content: 'Done.' });
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: prompt }],
    });
    const sent = JSON.stringify(openai.requests[0]!.body);
    expectNoRawValue(sent);
    expect(openai.requests[0]!.body.messages[0].content).toBe(
      'Refund [EMAIL_1], card [CARD_1]; the key was [SECRET_1]. Again: [EMAIL_1].',
    );
    expect(response.switchyard.sensitive_data).toEqual({ mode: 'mask', found: { email: 2, card: 1, secret: 1 } });
    expect(response.switchyard.warnings.map((warning) => warning.code)).toContain('sensitive_data_masked');
    const record = await recordOf(response.switchyard.call_id);
    expectNoRawValue(JSON.stringify(record));
    expect(record.sensitive_data).toEqual({ mode: 'mask', found: { email: 2, card: 1, secret: 1 } });
    expect(record.input_messages?.[0]?.content).toContain('[EMAIL_1]');
  });

  it('streams are masked the same way, and their record too', async () => {
    openai.enqueue({ content: 'Streamed answer.' });
    const stream = await gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Streamed answer.');
    const sent = JSON.stringify(openai.requests[0]!.body);
    expectNoRawValue(sent);
    expect(sent).toContain('[CARD_1]');
    const record = await recordOf(stream.switchyard.call_id);
    expectNoRawValue(JSON.stringify(record));
    expect(record.sensitive_data?.found).toEqual({ email: 2, card: 1, secret: 1 });
  });

  it("tool results and tool-call arguments are masked, the assistant's tool call id kept", async () => {
    openai.enqueue({ content: 'ok' });
    await gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Look the customer up.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: `{"q":"${EMAIL}"}` } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: `{"iban":"${IBAN}","email":"${EMAIL}"}` },
      ],
    });
    const messages = openai.requests[0]!.body.messages;
    expectNoRawValue(JSON.stringify(messages));
    expect(JSON.parse(messages[1].tool_calls[0].function.arguments)).toEqual({ q: '[EMAIL_1]' });
    expect(messages[2]).toMatchObject({ tool_call_id: 'call_1', content: '{"iban":"[IBAN_1]","email":"[EMAIL_1]"}' });
  });

  it("a deployment's input is masked where the template renders it, and in the record's input", async () => {
    openai.enqueue({ content: 'Triaged.' });
    const response = await gateway.createCompletion({
      model: 'switchyard/deployment/support-triage',
      input: { customer: EMAIL, ticket: `My card ${CARD} was charged twice.` },
    });
    expect(openai.requests[0]!.body.messages[0].content).toBe(
      'Ticket from [EMAIL_1]: My card [CARD_1] was charged twice.',
    );
    const record = await recordOf(response.switchyard.call_id);
    expectNoRawValue(JSON.stringify(record));
    expect(record.input).toEqual({ customer: '[EMAIL_1]', ticket: 'My card [CARD_1] was charged twice.' });
  });

  it('the response cache is keyed by the masked request: calls differing only in a masked value share it', async () => {
    openai.enqueue({ content: 'Your refund is on its way to [EMAIL_1].' });
    const ask = (email: string) =>
      gateway.createCompletion({
        model: 'openai/gpt-4o-mini',
        cache: 'always',
        messages: [{ role: 'user', content: `Cache check: refund ${email}` }],
      });
    const first = await ask('ann@example.com');
    const second = await ask('bob@example.org');
    expect(openai.requests).toHaveLength(1);
    expect(first.switchyard.cache).toBe('miss');
    expect(second.switchyard.cache).toBe('hit');
    expect(second.choices[0]!.message.content).toBe('Your refund is on its way to [EMAIL_1].');
  });

  it('a request without sensitive data is sent as written, with the mode in its facts', async () => {
    openai.enqueue({ content: 'fine' });
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Ship version 2.4.1 on 2025-03-14, order 1234567890123.' }],
    });
    expect(openai.requests[0]!.body.messages[0].content).toBe('Ship version 2.4.1 on 2025-03-14, order 1234567890123.');
    expect(response.switchyard.sensitive_data).toEqual({ mode: 'mask', found: {} });
  });
});

describe('block: the strictest mode wins', () => {
  it("a deployment's block beats the gateway's mask: a 400 naming the kinds, no provider request", async () => {
    const refused = await gateway
      .createCompletion({ model: 'switchyard/deployment/payments', input: { product: 'Cards', ticket: prompt } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      name: 'SensitiveDataError',
      status: 400,
      code: 'sensitive_data_blocked',
      kinds: ['email', 'card', 'secret'],
    });
    expectNoRawValue((refused as Error).message);
    expect((refused as Error).message).toContain('2 e-mail addresses');
    expect(openai.requests).toHaveLength(0);
    const record = await recordOf((refused as { callId: string }).callId);
    expectNoRawValue(JSON.stringify(record));
    expect(record).toMatchObject({ status: 'error', sensitive_data: { mode: 'block', found: { email: 2 } } });
  });

  it("a caller cannot loosen a deployment's block with its own sensitive_data", async () => {
    const refused = await gateway
      .createCompletion({
        model: 'switchyard/deployment/payments',
        sensitive_data: 'off',
        input: { product: 'Cards', ticket: `mail ${EMAIL}` },
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'sensitive_data_blocked', kinds: ['email'] });
    expect(openai.requests).toHaveLength(0);
  });

  it("a key's block (the call's access) beats the gateway's mask, streamed or not", async () => {
    for (const stream of [false, true]) {
      const refused = await gateway
        .createCompletion(
          { model: 'openai/gpt-4o-mini', stream, messages: [{ role: 'user', content: `IBAN ${IBAN}` }] },
          { access: { keyId: 'key_payments', sensitiveData: 'block' } },
        )
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'sensitive_data_blocked', kinds: ['iban'] });
    }
    expect(openai.requests).toHaveLength(0);
  });

  it('a request that fails validation is recorded masked too', async () => {
    const refused = await gateway
      .createCompletion({ model: 'openai/gpt-4o-mini', temperature: 7, messages: [{ role: 'user', content: prompt }] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, param: 'temperature' });
    const record = await recordOf((refused as { callId: string }).callId);
    expectNoRawValue(JSON.stringify(record));
  });
});

describe('embeddings', () => {
  it('the texts embedded are masked under mask, and refused under a key that blocks', async () => {
    const input = [`customer ${EMAIL}`, 'no data here'];
    const response = await gateway.createEmbedding({ model: 'openai/text-embedding-3-small', input });
    expect(openai.requests[0]!.body.input).toEqual(['customer [EMAIL_1]', 'no data here']);
    expect(input[0]).toBe(`customer ${EMAIL}`);
    expectNoRawValue(JSON.stringify(await recordOf(response.switchyard.call_id)));
    const refused = await gateway
      .createEmbedding({ model: 'openai/text-embedding-3-small', input }, { access: { sensitiveData: 'block' } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'sensitive_data_blocked', param: 'input', kinds: ['email'] });
    expect(openai.requests).toHaveLength(1);
    expectNoRawValue(JSON.stringify(await recordOf((refused as { callId: string }).callId)));
  });
});

describe('off', () => {
  it('sends the request as written and says nothing', async () => {
    const plain = createGateway({
      providers: { openai: { apiKey: 'sk-test-provider-key', baseURL: openai.url } },
      retry: { maxRetries: 0 },
    });
    openai.enqueue({ content: 'ok' });
    const response = await plain.createCompletion({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: `mail ${EMAIL}` }],
    });
    expect(openai.requests[0]!.body.messages[0].content).toBe(`mail ${EMAIL}`);
    expect(response.switchyard.sensitive_data).toBeUndefined();
    await plain.close();
  });
});
