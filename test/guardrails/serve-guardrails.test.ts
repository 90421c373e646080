import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Guardrails through `switchyard serve` and the official SDKs: a key minted with `sensitive_data: block` is refused
 * with each dialect's own 400 naming the kinds, and no provider request; the gateway's `mask` masks the others'
 * calls; the call records (the SQLite file itself) hold none of the raw values.
 */
const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';
const SECRET = 'sk-proj-AbCdEf0123456789GhIjKlMnOp';
const PROMPT = `Refund ${EMAIL} on card ${CARD}; my key is ${SECRET}.`;
const RAW = [EMAIL, CARD, '4111111111111111', SECRET];

let openai: FakeOpenAIServer;
let test: TestServer;
let blockingKey: string;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  test = await startTestServer({
    mock: false,
    gateway: {
      providers: { openai: { apiKey: 'sk-test-provider-key', baseURL: openai.url } },
      retry: { maxRetries: 0 },
      sensitiveData: 'mask',
    },
  });
  const minted = await api(test, '/v1/keys', { body: { name: 'payments', sensitive_data: 'block' } });
  expect(minted.status).toBe(201);
  const body = (await minted.json()) as { key: string; sensitive_data: string };
  expect(body.sensitive_data).toBe('block');
  blockingKey = body.key;
});
afterAll(async () => {
  await test.stop();
  await openai.close();
});
beforeEach(() => {
  openai.requests.length = 0;
});

describe('block, per key, in each dialect', () => {
  it('chat completions: the OpenAI error shape, plain and streamed', async () => {
    for (const stream of [false, true]) {
      const error = await test
        .openai(blockingKey)
        .chat.completions.create({ model: 'openai/gpt-4o-mini', stream, messages: [{ role: 'user', content: PROMPT }] })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
        type: 'invalid_request_error',
        code: 'sensitive_data_blocked',
        param: 'messages',
      });
      const message = (error as Error).message;
      expect(message).toContain('kinds: email, card, secret');
      for (const value of RAW) expect(message).not.toContain(value);
    }
    expect(openai.requests).toHaveLength(0);
  });

  it('Responses: the OpenAI error shape', async () => {
    const error = await test
      .openai(blockingKey)
      .responses.create({ model: 'openai/gpt-4o-mini', input: PROMPT })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      code: 'sensitive_data_blocked',
    });
    expect(openai.requests).toHaveLength(0);
  });

  it("Messages: Anthropic's error shape", async () => {
    const client = new Anthropic({ baseURL: test.url, apiKey: blockingKey, maxRetries: 0 });
    const error = await client.messages
      .create({ model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: PROMPT }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    expect((error as Error).message).toContain('kinds: email, card, secret');
    expect(openai.requests).toHaveLength(0);
  });

  it('a key it mints is at least as strict, whatever it asks', async () => {
    const asked = { name: 'payments-admin', scopes: ['chat', 'keys:create'], sensitive_data: 'block' };
    const parent = ((await (await api(test, '/v1/keys', { body: asked })).json()) as { key: string }).key;
    const minted = await api(test, '/v1/keys', { key: parent, body: { name: 'agent', sensitive_data: 'off' } });
    const child = (await minted.json()) as { key: string; sensitive_data: string };
    expect(child.sensitive_data).toBe('block');
    const error = await test
      .openai(child.key)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 400, code: 'sensitive_data_blocked' });
    expect(openai.requests).toHaveLength(0);
  });
});

describe('mask, the gateway default, through serve', () => {
  it('the provider and the stored records never see the raw values', async () => {
    openai.enqueue({ content: 'Refunded.' }, { content: 'Streamed.' });
    const client = test.openai();
    const answer = await client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: PROMPT }],
    });
    expect(answer.choices[0]!.message.content).toBe('Refunded.');
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    for await (const _chunk of stream);
    expect(openai.requests).toHaveLength(2);
    for (const request of openai.requests) {
      const sent = JSON.stringify(request.body);
      for (const value of RAW) expect(sent).not.toContain(value);
      expect(sent).toContain('[EMAIL_1]');
    }
    await test.server.gateway.flush();
    const listed = await (await api(test, '/v1/calls?limit=20')).text();
    for (const value of RAW) expect(listed).not.toContain(value);
    expect(listed).toContain('"sensitive_data":{"mode":"mask","found":{"email":1,"card":1,"secret":1}}');
    // Every file of the data directory as written: the database, its write-ahead log, the record journal.
    const files = readdirSync(test.dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const stored = files.map((file) => readFileSync(join(file.parentPath, file.name)).toString('latin1')).join('\n');
    expect(stored).toContain('[EMAIL_1]');
    for (const value of RAW) expect(stored).not.toContain(value);
  });
});
