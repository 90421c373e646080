import { zodTextFormat } from 'openai/helpers/zod';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MockProvider } from '../../src/testing/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * OpenAI's Responses API on `switchyard serve`, driven by the official `openai` SDK (`responses.create`,
 * `responses.stream`, `responses.parse`): plain, streamed, structured, and a function-tool loop both stateless and
 * with `previous_response_id`, on the simulator and on fake OpenAI, Anthropic and Gemini upstreams.
 */
const openaiUpstream = await useFakeOpenAIServer();
const anthropicUpstream = await startFakeAnthropicServer();
const geminiUpstream = await startFakeGeminiServer();
const scripted = new MockProvider();
let simulator: TestServer;
let upstreams: TestServer;
beforeAll(async () => {
  simulator = await startTestServer({ mock: scripted });
  upstreams = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: {
        openai: { apiKey: 'sk-upstream', baseURL: openaiUpstream.url },
        anthropic: { apiKey: 'sk-ant-upstream', baseURL: anthropicUpstream.url },
        google: { apiKey: 'gemini-upstream', baseURL: geminiUpstream.url },
      },
    },
  });
});
afterAll(async () => {
  await Promise.all([simulator.stop(), upstreams.stop(), anthropicUpstream.close(), geminiUpstream.close()]);
});

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

describe('responses.create with the openai SDK', () => {
  it('answers a plain string input on the simulator, recorded as a responses call', async () => {
    const { data, response } = await simulator
      .openai()
      .responses.create({ model: 'claude-haiku-4-5', input: 'Name a river.', instructions: 'Be brief.' })
      .withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed', model: 'claude-haiku-4-5-20251001' });
    expect(data.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(data.output_text).toContain('Name a river.');
    expect(data.usage?.input_tokens).toBeGreaterThan(0);
    await simulator.server.gateway.flush();
    const record = await simulator.server.gateway.calls.get!(response.headers.get('x-switchyard-call-id')!);
    expect(record).toMatchObject({ dialect: 'responses', status: 'ok' });
  });

  it('streams the Responses events in order, which the SDK accumulates, with the reasoning summary', async () => {
    scripted.enqueue({ content: 'Forty-two.', reasoning_content: 'Deep thought.' });
    const stream = simulator.openai().responses.stream({
      model: 'o3-latest',
      input: [{ role: 'user', content: 'The answer?' }],
      reasoning: { effort: 'low', summary: 'auto' },
    });
    const types: string[] = [];
    stream.on('event', (event: ResponseStreamEvent) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Deep thought.' }] });
    expect(final.output_text).toBe('Forty-two.');
    expect(types.slice(0, 3)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('gives structured output through text.format, parsed by responses.parse', async () => {
    const City = z.object({ name: z.string(), population: z.number() });
    const parsed = await simulator.openai().responses.parse({
      model: 'gemini-2.5-flash',
      input: 'A French city.',
      text: { format: zodTextFormat(City, 'city') },
    });
    expect(City.parse(parsed.output_parsed)).toBeTruthy();
  });

  it('runs a function-tool loop on a fake OpenAI upstream: stateless, then with previous_response_id', async () => {
    const client = upstreams.openai();
    openaiUpstream.enqueue({ tool_calls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Lyon"}' }] });
    const first = await client.responses.create({
      model: 'gpt-4o-latest',
      input: 'Weather in Lyon?',
      tools: [weather],
    });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Lyon"}' });
    expect(openaiUpstream.requests.at(-1)!.body.tools[0].function).toMatchObject({ name: 'get_weather', strict: true });

    // Stateless: the client sends the whole conversation back.
    openaiUpstream.enqueue({ content: 'Sunny in Lyon.' });
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Weather in Lyon?' },
      ...(first.output as ResponseInputItem[]),
      { type: 'function_call_output', call_id: 'call_w1', output: 'sunny, 24' },
    ];
    const second = await client.responses.create({ model: 'gpt-4o-latest', input, tools: [weather] });
    expect(second.output_text).toBe('Sunny in Lyon.');
    const sent = openaiUpstream.requests.at(-1)!.body.messages;
    expect(sent.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool']);

    // Stateful: the gateway reads the conversation back from its records.
    openaiUpstream.enqueue({ content: 'Still sunny.' });
    const third = await client.responses.create({
      model: 'gpt-4o-latest',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_w1', output: 'sunny, 24' }],
      tools: [weather],
    });
    expect(third.output_text).toBe('Still sunny.');
    expect(third.previous_response_id).toBe(first.id);
    expect(openaiUpstream.requests.at(-1)!.body.messages).toEqual(openaiUpstream.requests.at(-2)!.body.messages);
  });

  it('streams a function call that the SDK assembles', async () => {
    openaiUpstream.enqueue({ tool_calls: [{ id: 'call_s1', name: 'get_weather', arguments: '{"city":"Metz"}' }] });
    const stream = upstreams.openai().responses.stream({ model: 'gpt-4o-latest', input: 'Metz?', tools: [weather] });
    const final = await stream.finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_s1', arguments: '{"city":"Metz"}' }),
    ]);
  });

  it('keeps Claude thinking signatures across a stateless tool loop, in the reasoning item', async () => {
    const client = upstreams.openai();
    anthropicUpstream.enqueue({
      content: [
        { type: 'thinking', thinking: 'Need the tool.', signature: 'sig-claude' },
        { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Brest' } },
      ],
    });
    const first = await client.responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Weather in Brest?',
      tools: [weather],
      reasoning: { effort: 'low' },
      max_output_tokens: 8_000,
    });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(first.output[0]).toMatchObject({ summary: [] }); // no summary was asked for
    anthropicUpstream.enqueue({ content: [{ type: 'text', text: 'Rain.' }] });
    const second = await client.responses.create({
      model: 'claude-sonnet-4-5',
      input: [
        { role: 'user', content: 'Weather in Brest?' },
        ...(first.output as ResponseInputItem[]),
        { type: 'function_call_output', call_id: 'toolu_9', output: 'rain' },
      ],
      tools: [weather],
      reasoning: { effort: 'low' },
      max_output_tokens: 8_000,
    });
    expect(second.output_text).toBe('Rain.');
    expect(anthropicUpstream.requests.at(-1)!.body.messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: 'Need the tool.',
      signature: 'sig-claude',
    });
  });

  it('answers on Gemini', async () => {
    geminiUpstream.enqueue({ text: 'Bonjour.' });
    const response = await upstreams.openai().responses.create({ model: 'gemini-2.5-flash', input: 'Say hello.' });
    expect(response.output_text).toBe('Bonjour.');
    expect(geminiUpstream.requests.at(-1)!.model).toBe('gemini-2.5-flash');
  });

  it('retries and falls back as chat does', async () => {
    openaiUpstream.enqueue({ error: { status: 503, message: 'overloaded' } });
    geminiUpstream.enqueue({ text: 'From the fallback.' });
    const response = await upstreams.openai().responses.create({
      model: 'gpt-4o-latest',
      input: 'Hi',
      // A Switchyard field, as in chat.
      fallbacks: ['gemini-2.5-flash'],
    } as never);
    expect((response as { output_text: string }).output_text).toBe('From the fallback.');
  });

  it('answers an unknown previous response with a 404', async () => {
    const client = simulator.openai();
    const unknown = await client.responses
      .create({ model: 'gpt-4o-latest', input: 'x', previous_response_id: `resp_${'0'.repeat(32)}` })
      .catch((error) => error);
    expect(unknown).toMatchObject({ status: 404, code: 'previous_response_not_found' });
  });
});
