import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeploymentStore } from '../../src/deployments/index.ts';
import { createGateway, InvalidRequestError, renderTemplate } from '../../src/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * A 3 MB `input` value referenced 150 times expanded to 450 MB per request (four of them at once
 * took `serve` to a heap OOM). The rendered messages are bounded (`maxRenderedBytes`, default 8 MiB), counted while
 * rendering: the request is a 400 `template_too_large` naming the variable, before the expansion is built.
 */

const MB = 1024 * 1024;
const doc = 'x'.repeat(3 * MB);
const amplifying = Array.from({ length: 150 }, () => '{{doc}}').join(' ');
const deployment = makeDeployment(
  { agent_id: 'amplifier', number: 1 },
  { messages: [{ role: 'user', content: `Summarise: ${amplifying}` }] },
);
const deploymentModel = `switchyard/deployment/${deployment.id}`;

/** `input` whose `doc` counts how often it is read: one read per rendered reference. */
function countingInput(value: string): { input: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const input = {};
  Object.defineProperty(input, 'doc', { enumerable: true, get: () => (reads++, value) });
  return { input, reads: () => reads };
}

async function refusal(promise: Promise<unknown>): Promise<InvalidRequestError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(InvalidRequestError);
  return error as InvalidRequestError;
}

describe('templating cannot amplify memory (in process)', () => {
  const gateway = createGateway({ mock: true, deployments: new MemoryDeploymentStore([deployment]) });
  afterAll(() => gateway.close());

  it('a 3 MB value referenced 150 times in a direct call is a 400 naming the variable', async () => {
    const counted = countingInput(doc);
    const error = await refusal(
      gateway.createCompletion({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: amplifying }],
        input: counted.input,
      }),
    );
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'template_too_large' });
    expect(error.param).toBe('input.doc');
    expect(error.message).toContain('{{doc}}');
    expect(error.message).toContain('8388608 bytes (maxRenderedBytes)');
    // Stopped at the reference that passed the limit: 3 of 150, never the 450 MB.
    expect(counted.reads()).toBe(3);
    expect(error.callId).toBeDefined();
    await gateway.flush();
    const record = (await gateway.calls.list()).data.find((call) => call.id === error.callId);
    expect(record?.error?.code).toBe('template_too_large');
  });

  it('the same through a stored deployment, named by the deployment and its message', async () => {
    const counted = countingInput(doc);
    const error = await refusal(gateway.createCompletion({ model: deploymentModel, input: counted.input }));
    expect(error).toMatchObject({ status: 400, code: 'template_too_large', param: 'input.doc' });
    expect(error.message).toContain(`Deployment "${deployment.id}" messages[0]`);
    expect(counted.reads()).toBe(3);
  });

  it('counts every rendered message together, in UTF-8 bytes, and is configurable', async () => {
    const small = createGateway({ mock: true, maxRenderedBytes: 1_000, records: false });
    const request = (value: string, copies: number) =>
      small.createCompletion({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'Reply {{reply}}.' },
          ...Array.from({ length: copies }, () => ({ role: 'user' as const, content: '{{value}}' })),
        ],
        input: { value, reply: 'briefly' },
      });
    // 'Reply briefly.' is 14 bytes, each copy of 'é' × 100 is 200 bytes: 4 copies fit, 5 do not.
    const answer = await request('é'.repeat(100), 4);
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const error = await refusal(request('é'.repeat(100), 5));
    expect(error).toMatchObject({ code: 'template_too_large', param: 'input.value' });
    expect(error.message).toContain('messages[5]');
    expect(error.message).toContain('1000 bytes (maxRenderedBytes)');
    // Texts without variables are passed through and do not count.
    await small.createCompletion({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'y'.repeat(5_000) }],
      input: { unused: true },
    });
  });

  it('renderTemplate on its own is bounded too', () => {
    expect(() => renderTemplate(amplifying, { doc }, 'prompt')).toThrow(/template_too_large|maxRenderedBytes/);
    expect(renderTemplate('{{a}}{{a}}', { a: 'xyz' }, 'prompt', { maxRenderedBytes: 6 })).toBe('xyzxyz');
    expect(() => renderTemplate('{{a}}{{a}}', { a: 'xyz' }, 'prompt', { maxRenderedBytes: 5 })).toThrow(
      InvalidRequestError,
    );
  });
});

describe('templating cannot amplify memory (serve)', () => {
  let test: TestServer;
  let client: OpenAI;
  beforeAll(async () => {
    test = await startTestServer();
    client = test.openai();
    const put = await api(test, `/v1/deployments/${encodeURIComponent(deployment.id)}`, {
      method: 'PUT',
      body: deployment,
    });
    expect(put.status).toBe(201);
  });
  afterAll(() => test?.stop());

  for (const [name, body] of [
    ['a direct call', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: amplifying }], input: { doc } }],
    ['a deployment', { model: deploymentModel, input: { doc } }],
  ] as const) {
    it(`four amplifying requests at once (${name}) are each a 400 naming the variable; serve goes on`, async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, () =>
          client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming).then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      );
      for (const error of outcomes) {
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({ status: 400, code: 'template_too_large', param: 'input.doc' });
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('{{doc}}');
        const callId = (error as InstanceType<typeof OpenAI.BadRequestError>).headers?.get('x-switchyard-call-id');
        expect(callId).toBeTruthy();
      }
      const answer = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'still there?' }],
      });
      expect(answer.choices[0]?.message.content).toBeTruthy();
    });
  }

  it('serve takes the bound from its gateway options (the CLI: --max-rendered-bytes)', async () => {
    const strict = await startTestServer({ gateway: { maxRenderedBytes: 1_000 } });
    try {
      const error = await strict
        .openai()
        .chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: '{{note}} {{note}}' }],
          input: { note: 'n'.repeat(600) },
        } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect(error).toMatchObject({ status: 400, code: 'template_too_large', param: 'input.note' });
      expect((error as Error).message).toContain('1000 bytes (maxRenderedBytes)');
    } finally {
      await strict.stop();
    }
  });

  it('the refused calls are recorded', async () => {
    await test.server.gateway.flush();
    const listed = await jsonOf(await api(test, '/v1/calls?limit=50'));
    const refused = (listed.data as Array<{ error?: { code?: string } | null }>).filter(
      (call) => call.error?.code === 'template_too_large',
    );
    expect(refused).toHaveLength(8);
  });
});
