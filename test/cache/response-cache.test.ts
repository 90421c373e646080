import { describe, expect, it } from 'vitest';
import { MemorySpendStore } from '../../src/budgets/memory-spend-store.ts';
import type { CompletionRequest, CompletionResponse } from '../../src/index.ts';
import { collect, deltaText } from '../helpers/chunks.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';

/** The response cache in one process, against the fake OpenAI server: what reaches it, and what a hit answers. */
const server = await useFakeOpenAIServer();

const question = (content = 'What is 2 + 2?'): CompletionRequest => ({
  model: 'gpt-4o-latest',
  messages: [{ role: 'user', content }],
  temperature: 0,
});

describe('a hit', () => {
  it('is the first answer again, with its usage, at cost 0, without reaching the provider', async () => {
    server.enqueue({ content: 'Four.', usage: { prompt_tokens: 20, completion_tokens: 2 } });
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const first = (await gateway.createCompletion(question())) as CompletionResponse;
    const second = (await gateway.createCompletion(question())) as CompletionResponse;

    expect(server.requests).toHaveLength(1);
    expect(first.switchyard.cache).toBe('miss');
    expect(second.switchyard.cache).toBe('hit');
    expect(second.choices).toEqual(first.choices);
    expect(second.usage).toEqual(first.usage);
    expect(second.switchyard).toMatchObject({ provider: 'openai', cost_usd: 0, attempts: [] });
    expect(second.switchyard.call_id).not.toBe(first.switchyard.call_id);

    await gateway.flush();
    const hit = await gateway.calls.get!(second.switchyard.call_id);
    expect(hit).toMatchObject({ cache: 'hit', cost_usd: 0, status: 'ok', output: { content: 'Four.' } });
    expect((await gateway.calls.get!(first.switchyard.call_id))?.cache).toBe('miss');
  });

  it('holds and charges no budget', async () => {
    const store = new MemorySpendStore();
    const calls: string[] = [];
    const { reserve, settle } = { reserve: store.reserve.bind(store), settle: store.settle.bind(store) };
    store.reserve = (...args) => (calls.push('reserve'), reserve(...args));
    store.settle = (...args) => (calls.push('settle'), settle(...args));
    const gateway = gatewayAgainst(server.url, { cache: {}, budgets: { perTrace: 10, store } });
    const traced = { ...question('budget'), metadata: { trace_id: 't-cache' } };
    await gateway.createCompletion(traced);
    await gateway.flush();
    const hit = (await gateway.createCompletion(traced)) as CompletionResponse;
    await gateway.flush();
    expect(hit.switchyard.cache).toBe('hit');
    expect(calls).toEqual(['reserve', 'settle']);
  });
});

describe('what is cached', () => {
  it('auto: only deterministic requests (temperature 0 or a seed); an unset temperature is not', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const { temperature: _, ...unset } = question('unset');
    for (const request of [unset, unset, { ...unset, seed: 7 }, { ...unset, seed: 7 }]) {
      await gateway.createCompletion(request);
    }
    expect(server.requests).toHaveLength(3);
  });

  it('a call overrides the gateway: never, or always for a request that is not deterministic', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    await gateway.createCompletion({ ...question('never'), cache: 'never' });
    await gateway.createCompletion({ ...question('never'), cache: 'never' });
    const hot = { ...question('always'), temperature: 0.9, cache: 'always' as const };
    await gateway.createCompletion(hot);
    const again = (await gateway.createCompletion(hot)) as CompletionResponse;
    expect(server.requests).toHaveLength(3);
    expect(again.switchyard.cache).toBe('hit');
  });

  it('without a gateway cache only calls that ask are cached; with cache: false none, with a warning', async () => {
    const plain = gatewayAgainst(server.url);
    await plain.createCompletion(question('default'));
    await plain.createCompletion(question('default'));
    await plain.createCompletion({ ...question('asks'), cache: 'auto' });
    await plain.createCompletion({ ...question('asks'), cache: 'auto' });
    expect(server.requests).toHaveLength(3);

    const off = gatewayAgainst(server.url, { cache: false });
    const refused = (await off.createCompletion({ ...question('off'), cache: 'always' })) as CompletionResponse;
    await off.createCompletion({ ...question('off'), cache: 'always' });
    expect(server.requests).toHaveLength(5);
    expect(refused.switchyard.warnings.map((warning) => warning.code)).toContain('cache_off');
  });

  it('the key is what reaches the model: metadata and user do not split it, messages and parameters do', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    await gateway.createCompletion(question('key'));
    await gateway.createCompletion({ ...question('key'), metadata: { trace_id: 'other' }, user: 'someone' });
    await gateway.createCompletion({ ...question('key'), model: 'gpt-4o-2024-11-20' });
    expect(server.requests).toHaveLength(1);
    await gateway.createCompletion({ ...question('key'), max_tokens: 5 });
    await gateway.createCompletion(question('key!'));
    await gateway.createCompletion({ ...question('key'), stop: ['\n'] });
    expect(server.requests).toHaveLength(4);
  });

  it('templated messages are keyed as rendered: the same text from other input is a hit', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const templated = { ...question('Hello {{name}}'), input: { name: 'Ada' } };
    await gateway.createCompletion(templated);
    await gateway.createCompletion(question('Hello Ada'));
    await gateway.createCompletion({ ...templated, input: { name: 'Bob' } });
    expect(server.requests).toHaveLength(2);
  });

  it('an error is not cached', async () => {
    server.enqueue({ error: { status: 400, message: 'bad' } });
    const gateway = gatewayAgainst(server.url, { cache: {} });
    await expect(gateway.createCompletion(question('error'))).rejects.toThrow();
    await gateway.createCompletion(question('error'));
    expect(server.requests).toHaveLength(2);
  });
});

describe('streams', () => {
  it('a finished stream is stored as assembled, and a hit is streamed as chunks with the original usage', async () => {
    server.enqueue({ content: 'Streamed four.', usage: { prompt_tokens: 30, completion_tokens: 3 } });
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const streamed = { ...question('stream'), stream: true as const, stream_options: { include_usage: true } };
    const miss = await gateway.createCompletion(streamed);
    expect(miss.switchyard.cache).toBe('miss');
    expect(deltaText(await collect(miss), 'content')).toBe('Streamed four.');

    const hit = await gateway.createCompletion(streamed);
    expect(hit.switchyard).toMatchObject({ cache: 'hit', cost_usd: 0 });
    const chunks = await collect(hit);
    expect(deltaText(chunks, 'content')).toBe('Streamed four.');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 3 });
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(true);
    const answered = (await gateway.createCompletion(question('stream'))) as CompletionResponse;
    expect(answered.choices[0]?.message.content).toBe('Streamed four.');
    expect(server.requests).toHaveLength(1);

    await gateway.flush();
    const record = await gateway.calls.get!(hit.switchyard.call_id);
    expect(record).toMatchObject({ cache: 'hit', stream: true, cost_usd: 0, output: { content: 'Streamed four.' } });
  });

  it('a stream a summary cannot hold whole (several choices, logprobs, reasoning) is not stored', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    for (const [name, extra, reply] of [
      ['choices', { n: 2 }, { content: 'One of two.' }],
      ['logprobs', { logprobs: true }, { content: 'With logprobs.' }],
      ['reasoning', {}, { content: 'Thought.', reasoning: { field: 'reasoning_content' as const, text: 'Hmm.' } }],
    ] as const) {
      const before = server.requests.length;
      server.enqueue(reply, reply);
      const streamed = {
        ...question(`summary ${name}`),
        ...extra,
        stream: true as const,
        stream_options: { include_usage: true },
      };
      await collect(await gateway.createCompletion(streamed));
      const answered = (await gateway.createCompletion({
        ...question(`summary ${name}`),
        ...extra,
      })) as CompletionResponse;
      expect(answered.switchyard.cache, name).toBe('miss');
      expect(server.requests.length - before, name).toBe(2);
    }
  });

  it('a stream cut short, or left early, is not stored', async () => {
    server.enqueue({ content: 'one two three four', truncateAfter: 1 });
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const streamed = { ...question('cut'), stream: true as const };
    // Cut with no failover (a failover would splice the answer, and a spliced answer is not stored either).
    await expect(collect(await gateway.createCompletion({ ...streamed, stream_failover: false }))).rejects.toThrow();
    for await (const _ of await gateway.createCompletion(streamed)) break;
    const third = await gateway.createCompletion(streamed);
    expect(third.switchyard.cache).toBe('miss');
    await collect(third);
    expect(server.requests).toHaveLength(3);
  });
});

describe('tenants', () => {
  it("keys of one tree share answers; another tree's key never reads them", async () => {
    const gateway = gatewayAgainst(server.url, { cache: {} });
    const ask = (keyId: string, ancestors: string[] = []) =>
      gateway.createCompletion(question('tenants'), { access: { keyId, ancestors } }) as Promise<CompletionResponse>;
    await ask('root-a');
    expect((await ask('child-a', ['root-a'])).switchyard.cache).toBe('hit');
    expect((await ask('root-b')).switchyard.cache).toBe('miss');
    expect((await ask('child-b', ['root-b'])).switchyard.cache).toBe('hit');
    expect((await gateway.createCompletion(question('tenants'))).switchyard.cache).toBe('miss');
    expect(server.requests).toHaveLength(3);
  });
});

describe('a hit a fallback answered', () => {
  const down = { error: { status: 500, message: 'down' } };
  const fallbackAnswered = async (gateway: ReturnType<typeof gatewayAgainst>, request: CompletionRequest) => {
    // The model's two providers here (OpenAI, OpenRouter) fail; the fallback answers.
    server.enqueue(down, down, { content: 'From the fallback.' });
    return (await gateway.createCompletion(request)) as CompletionResponse;
  };

  it('is a miss for a caller that may not use the model that answered it', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {}, retry: { maxRetries: 0 } });
    const request = { ...question('fallback models'), fallbacks: ['openai/gpt-4o-mini'] };
    const first = await fallbackAnswered(gateway, request);
    expect(first.switchyard.model).toContain('gpt-4o-mini');
    const before = server.requests.length;
    server.enqueue(down, down);
    // The same request from a caller limited to the first model: its fallback is skipped, and the cached answer of
    // gpt-4o-mini is not its to read.
    const limited = await gateway
      .createCompletion(request, { access: { models: ['gpt-4o-latest'] } })
      .catch((error: unknown) => error);
    expect((limited as CompletionResponse).switchyard?.cache).not.toBe('hit');
    expect(server.requests.length).toBeGreaterThan(before);
  });

  it('names the model that answered, in its facts and its record, as the first call did', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {}, retry: { maxRetries: 0 } });
    const request = { ...question('fallback names'), fallbacks: ['openai/gpt-4o-mini'] };
    const first = await fallbackAnswered(gateway, request);
    const hit = (await gateway.createCompletion(request)) as CompletionResponse;
    expect(hit.switchyard.cache).toBe('hit');
    expect(hit.switchyard.model).toBe(first.switchyard.model);
    await gateway.flush();
    expect((await gateway.calls.get!(hit.switchyard.call_id))?.model).toBe(first.switchyard.model);
  });

  it('is keyed by fallback_on: a caller asking to fall back on a refusal is not served a cached refusal', async () => {
    const gateway = gatewayAgainst(server.url, { cache: {}, retry: { maxRetries: 0 } });
    const request = { ...question('refusals'), fallbacks: ['openai/gpt-4o-mini'] };
    server.enqueue({ refusal: 'I cannot.' });
    const refused = (await gateway.createCompletion(request)) as CompletionResponse;
    expect(refused.choices[0]!.message.refusal).toBe('I cannot.');
    server.enqueue({ refusal: 'I cannot.' }, { content: 'Here it is.' });
    const fellBack = (await gateway.createCompletion({ ...request, fallback_on: ['refusal'] })) as CompletionResponse;
    expect(fellBack.switchyard.cache).not.toBe('hit');
    expect(fellBack.choices[0]!.message.content).toBe('Here it is.');
  });
});
