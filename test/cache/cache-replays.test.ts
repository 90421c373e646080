import { describe, expect, it } from 'vitest';
import type { CallRecord, CompletionRequest, CompletionResponse } from '../../src/index.ts';
import { createGateway } from '../../src/index.ts';
import { collect } from '../helpers/chunks.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * What a hit may answer: only what the call it stands for would have (its structured output checked as a
 * non-streamed call checks it, its media, its own request's warnings), and never for a request that differs in
 * what a provider is sent.
 */
const server = await useFakeOpenAIServer();
const ask = (content: string, extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  model: 'gpt-4o-latest',
  messages: [{ role: 'user', content }],
  temperature: 0,
  ...extra,
});
const schema = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'answer',
    strict: true,
    schema: {
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
      additionalProperties: false,
    },
  },
};

describe('a hit', () => {
  it('of a streamed structured answer does not answer a non-streamed call, whose output is checked whole', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const before = server.requests.length;
    server.enqueue({ content: '{"answer":"four"}' }, { content: '{"answer":"four"}' });
    await collect((await gateway.createCompletion(ask('json', { response_format: schema, stream: true }))) as never);
    const whole = (await gateway.createCompletion(ask('json', { response_format: schema }))) as CompletionResponse;
    expect(server.requests.length - before).toBe(2);
    expect(whole.switchyard.cache).toBe('miss');
    expect((whole.choices[0]!.message as { parsed?: unknown }).parsed).toEqual({ answer: 'four' });
    // Now stored whole: a streamed call takes it.
    const streamed = await gateway.createCompletion(ask('json', { response_format: schema, stream: true }));
    expect(streamed.switchyard.cache).toBe('hit');
  });

  it('is never a stream that asked for images or audio', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const before = server.requests.length;
    const request = ask('draw', { modalities: ['text', 'audio'], stream: true } as Partial<CompletionRequest>);
    server.enqueue({ content: 'Here.' }, { content: 'Here.' });
    await collect((await gateway.createCompletion(request)) as never);
    const again = await gateway.createCompletion(request);
    await collect(again as never);
    expect(again.switchyard.cache).not.toBe('hit');
    expect(server.requests.length - before).toBe(2);
  });

  it('is not shared by requests that send a provider different service_tier or store', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const before = server.requests.length;
    server.enqueue({ content: 'A.' }, { content: 'B.' });
    await gateway.createCompletion(ask('tier'));
    const flex = (await gateway.createCompletion(ask('tier', { service_tier: 'flex' }))) as CompletionResponse;
    expect(flex.switchyard.cache).toBe('miss');
    expect(server.requests.length - before).toBe(2);
  });

  it('carries its answer’s warnings, not the request warnings of the call that stored it', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    server.enqueue({ content: 'Fine.' });
    await gateway.createResponse({ model: 'gpt-4o-latest', input: 'warned', temperature: 0, store: false });
    const hit = (await gateway.createCompletion(ask('warned'))) as CompletionResponse;
    expect(hit.switchyard.cache).toBe('hit');
    expect(hit.switchyard.warnings.map((warning) => warning.param)).not.toContain('store');
  });
});

describe('a hit and the answer’s guardrails', () => {
  it('is recorded once, with the answer they let out, or once as their refusal', async () => {
    let refuse = false;
    // Every record written, as a sink that keeps them all sees them (a table would replace one id's).
    const written: CallRecord[] = [];
    const gateway = gatewayAgainst(server.url, {
      cache: {},
      records: { sinks: [{ write: (records: CallRecord[]) => void written.push(...records) }] },
      guardrails: [
        {
          name: 'shout',
          onResponse(answer, context) {
            if (refuse) context.refuse('not today.');
            const choice = answer.choices[0]!;
            const content = String(choice.message.content).toUpperCase();
            return { ...answer, choices: [{ ...choice, message: { ...choice.message, content } }] };
          },
        },
      ],
    });
    server.enqueue({ content: 'quiet.' });
    await gateway.createCompletion(ask('guarded'));
    const hit = (await gateway.createCompletion(ask('guarded'))) as CompletionResponse;
    expect(hit.switchyard.cache).toBe('hit');
    refuse = true;
    const refused = await gateway.createCompletion(ask('guarded')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    await gateway.flush();
    const of = (id: string) => written.filter((record) => record.id === id);
    expect(of(hit.switchyard.call_id)).toHaveLength(1);
    expect(of(hit.switchyard.call_id)[0]!.output?.content).toBe('QUIET.');
    const refusedId = (refused as { callId: string }).callId;
    expect(of(refusedId).map((record) => record.status)).toEqual(['error']);
  });
});

describe('a whole answer replayed as a stream', () => {
  it('carries its logprobs with its text', async () => {
    // The simulator gives logprobs when asked.
    const gateway = createGateway({ mock: true, env: {}, cache: {} });
    const whole = (await gateway.createCompletion(
      ask('logprobs', { logprobs: true, top_logprobs: 2 }),
    )) as CompletionResponse;
    const logprobs = whole.choices[0]!.logprobs;
    expect(logprobs?.content?.length).toBeGreaterThan(0);
    const chunks = await collect(
      (await gateway.createCompletion(ask('logprobs', { logprobs: true, top_logprobs: 2, stream: true }))) as never,
    );
    const replayed = chunks.flatMap((chunk) => chunk.choices[0]?.logprobs?.content ?? []);
    // As JSON: the stored entry is JSON, in which -0 is 0.
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(logprobs!.content));
  });
});
