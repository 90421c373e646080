import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The Anthropic Messages API on `switchyard serve`, driven by Anthropic's own SDK as Claude Code drives it: plain,
 * streamed, with thinking, and a multi-turn tool loop, on the simulator, on a fake OpenAI upstream and on Claude
 * through the fake Anthropic server.
 */
const openai = await useFakeOpenAIServer();
const anthropicUpstream = await startFakeAnthropicServer();
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
        openai: { apiKey: 'sk-upstream', baseURL: openai.url },
        anthropic: { apiKey: 'sk-ant-upstream', baseURL: anthropicUpstream.url },
      },
    },
  });
});
afterAll(async () => {
  await Promise.all([simulator.stop(), upstreams.stop(), anthropicUpstream.close()]);
});

const client = (server: TestServer) => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });
const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('messages.create with the Anthropic SDK', () => {
  it('answers a plain message on the simulator, with usage and the call id', async () => {
    const { data, response } = await client(simulator)
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(data).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-haiku-4-5-20251001' });
    expect(data.content[0]).toMatchObject({ type: 'text' });
    expect(data.stop_reason).toBe('end_turn');
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.id).toMatch(/^msg_/);
    const callId = response.headers.get('x-switchyard-call-id')!;
    await simulator.server.gateway.flush();
    const record = await simulator.server.gateway.calls.get!(callId);
    expect(record).toMatchObject({ dialect: 'messages', model: 'claude-haiku-4-5-20251001', status: 'ok' });
  });

  it('streams the Messages event sequence, which the SDK assembles into the same message', async () => {
    scripted.enqueue({ content: 'The answer is forty-two.', reasoning_content: 'Let me think.' });
    const stream = client(simulator).messages.stream({
      model: 'gpt-4o-latest',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Question?' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[1]).toMatchObject({ text: 'The answer is forty-two.' });
    expect(message.stop_reason).toBe('end_turn');
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types.filter((type) => type === 'content_block_start')).toHaveLength(2);
    expect(types.filter((type) => type === 'content_block_stop')).toHaveLength(2);
  });

  it('runs a multi-turn tool loop on a fake OpenAI upstream, streamed and not', async () => {
    const api = client(upstreams);
    openai.enqueue({ tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lyon"}' }] });
    const first = await api.messages.create({
      model: 'gpt-4o-latest',
      max_tokens: 300,
      tools: [weather],
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect(use).toMatchObject({ id: 'call_1', name: 'get_weather', input: { city: 'Lyon' } });
    expect(openai.requests.at(-1)!.body.tools[0].function).toMatchObject({ name: 'get_weather' });

    openai.enqueue({ content: 'Sunny, 24°C.' });
    const second = api.messages.stream({
      model: 'gpt-4o-latest',
      max_tokens: 300,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Lyon?' },
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny, 24' }] },
      ],
    });
    const final = await second.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Sunny, 24°C.', citations: null }]);
    const sent = openai.requests.at(-1)!.body.messages;
    expect(sent.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(sent[1].tool_calls[0]).toMatchObject({ id: 'call_1', function: { name: 'get_weather' } });
    expect(sent[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'sunny, 24' });
  });

  it('reaches Claude with the same Messages request it was sent, thinking and tool loop included', async () => {
    const api = client(upstreams);
    anthropicUpstream.enqueue({
      content: [
        { type: 'thinking', thinking: 'They want the weather.', signature: 'sig-1' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Nice' } },
      ],
      usage: { input_tokens: 50, output_tokens: 20 },
    });
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 4_000,
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      tools: [weather],
      messages: [{ role: 'user', content: 'Weather in Nice?' }],
    };
    const first = await api.messages.create(request);
    expect(first.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(first.content[0]).toMatchObject({ thinking: 'They want the weather.', signature: 'sig-1' });
    const sent = anthropicUpstream.requests.at(-1)!.body;
    expect(sent).toMatchObject({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 4_000,
      system: request.system,
      thinking: request.thinking,
      messages: [{ role: 'user', content: 'Weather in Nice?' }],
    });
    expect(sent.tools).toEqual([weather]);

    anthropicUpstream.enqueue({ content: [{ type: 'text', text: 'Sunny.' }] });
    const turn: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Weather in Nice?' },
      { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny', is_error: false }] },
    ];
    const second = await api.messages.create({ ...request, messages: turn });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny.', citations: null }]);
    // The thinking block goes back to Claude with its signature, as the API requires in a tool loop.
    expect(anthropicUpstream.requests.at(-1)!.body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'They want the weather.', signature: 'sig-1' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Nice' } },
    ]);
  });

  it('answers errors in the Anthropic shape, which the SDK turns into its own error classes', async () => {
    const api = client(upstreams);
    const unknown = await api.messages
      .create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((error) => error);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect(unknown.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const noKey = await new Anthropic({ baseURL: upstreams.url, apiKey: 'sy-wrong', maxRetries: 0 }).messages
      .create({ model: 'gpt-4o-latest', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((error) => error);
    expect(noKey).toBeInstanceOf(Anthropic.AuthenticationError);
    const count = await api.messages
      .countTokens({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'x' }] })
      .catch((error) => error);
    expect(count).toBeInstanceOf(Anthropic.NotFoundError);
    expect(count.message).toContain('count_tokens is not offered');
  });

  it('answers a wrong method on its path (405) in the Anthropic shape too, with Allow', async () => {
    const response = await fetch(`${upstreams.url}/v1/messages`, { headers: { 'x-api-key': upstreams.key } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
  });

  it("answers an unknown path under /v1/messages/ (Anthropic's batches) with a 404 in Anthropic's shape", async () => {
    const response = await fetch(`${upstreams.url}/v1/messages/batches`, {
      method: 'POST',
      headers: { 'x-api-key': upstreams.key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    // Outside the Messages API's paths, an unknown route stays in the OpenAI shape.
    const elsewhere = await fetch(`${upstreams.url}/v1/messagesx`, { headers: { 'x-api-key': upstreams.key } });
    expect(await elsewhere.json()).toMatchObject({ error: { code: 'unknown_url' } });
  });
});

describe('gateway.createMessage in process', () => {
  it('translates for any model and records the dialect', async () => {
    const gateway = createGateway({ mock: true });
    const message = await gateway.createMessage({
      model: 'gemini-2.5-flash',
      max_tokens: 100,
      top_k: 5,
      messages: [{ role: 'user', content: 'Hi' }],
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(message.type).toBe('message');
    expect(message.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_parameter', param: 'top_k' }),
    ]);
    await gateway.flush();
    const { data } = await gateway.calls.list({ dialect: 'messages' });
    expect(data).toHaveLength(1);
  });
});
