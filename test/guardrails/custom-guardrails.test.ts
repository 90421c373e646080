import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createGateway,
  type Gateway,
  type Guardrail,
  type GuardrailContext,
  GuardrailRefusedError,
} from '../../src/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/** `createGateway({ guardrails })`: hooks of one's own that inspect, rewrite or refuse a request and an answer. */
let openai: FakeOpenAIServer;
const seen: GuardrailContext[] = [];
const guardrails: Guardrail[] = [
  {
    name: 'no-competitors',
    onRequest(request, context) {
      seen.push(context);
      const text = JSON.stringify(request.messages);
      if (text.includes('AcmeCorp')) context.refuse('the request names a competitor.');
    },
  },
  {
    name: 'house-style',
    async onRequest(request) {
      return { messages: [{ role: 'system', content: 'Answer in one sentence.' }, ...request.messages] };
    },
    onResponse(answer, context) {
      const text = answer.choices[0]?.message.content ?? '';
      if (text.includes('forbidden')) context.refuse('the answer uses a forbidden word.');
      const choice = answer.choices[0]!;
      return { ...answer, choices: [{ ...choice, message: { ...choice.message, content: text.toUpperCase() } }] };
    },
  },
];
let gateway: Gateway;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  gateway = createGateway({
    providers: { openai: { apiKey: 'sk-test-provider-key', baseURL: openai.url } },
    retry: { maxRetries: 0 },
    sensitiveData: 'mask',
    guardrails,
  });
});
afterAll(async () => {
  await gateway.close();
  await openai.close();
});
beforeEach(() => {
  openai.requests.length = 0;
  seen.length = 0;
});

describe('custom guardrails', () => {
  it('see the masked request and the findings, rewrite it, and rewrite the answer', async () => {
    openai.enqueue({ content: 'all good' });
    const response = await gateway.createCompletion(
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Write to ann@example.com' }] },
      { access: { keyId: 'key_team_a' } },
    );
    expect(seen[0]).toMatchObject({
      model: response.switchyard.model,
      keyId: 'key_team_a',
      sensitiveData: { mode: 'mask', found: { email: 1 } },
    });
    expect(openai.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: 'Write to [EMAIL_1]' },
    ]);
    expect(response.choices[0]!.message.content).toBe('ALL GOOD');
    await gateway.flush();
    expect((await gateway.calls.get!(response.switchyard.call_id))?.output?.content).toBe('ALL GOOD');
  });

  it('refuse a request with a typed error naming the guardrail, before any provider request', async () => {
    const refused = await gateway
      .createCompletion({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Compare AcmeCorp' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GuardrailRefusedError);
    expect(refused).toMatchObject({
      status: 400,
      code: 'guardrail_refused',
      guardrail: 'no-competitors',
      stage: 'request',
      message: 'Guardrail "no-competitors" refused the request: the request names a competitor.',
    });
    expect(openai.requests).toHaveLength(0);
    await gateway.flush();
    const record = await gateway.calls.get!((refused as GuardrailRefusedError).callId!);
    expect(record?.error).toMatchObject({ code: 'guardrail_refused', status: 400 });
  });

  it('refuse an answer: the caller gets the typed error, not the answer', async () => {
    openai.enqueue({ content: 'a forbidden word' });
    const refused = await gateway
      .createCompletion({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say it' }] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'GuardrailRefusedError', guardrail: 'house-style', stage: 'response' });
    expect(openai.requests).toHaveLength(1);
  });

  it('a streamed answer cannot be held back: onResponse does not run, and the call says so', async () => {
    openai.enqueue({ content: 'a forbidden word' });
    const stream = await gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'Say it' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('a forbidden word');
    expect(stream.switchyard.warnings.map((warning) => warning.code)).toContain('guardrail_not_applied');
  });

  it("a guardrail's own bug is a 500 naming it, never blamed on the caller or the provider", async () => {
    const broken = createGateway({
      providers: { openai: { apiKey: 'sk-test-provider-key', baseURL: openai.url } },
      guardrails: [
        {
          name: 'broken',
          onRequest() {
            throw new TypeError('cannot read x of undefined');
          },
        },
      ],
    });
    const failed = await broken
      .createCompletion({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ status: 500, code: 'guardrail_failed' });
    expect((failed as Error).message).toBe('Guardrail "broken" failed: cannot read x of undefined');
    expect(openai.requests).toHaveLength(0);
    await broken.close();
  });
});
