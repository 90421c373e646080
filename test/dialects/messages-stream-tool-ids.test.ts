import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import type { TestServer } from '../server/start-test-server.ts';
import { chunk, serveOverRawOpenAI } from './raw-openai-upstream.ts';

/**
 * OpenAI-compatible providers that name a tool call again on its later argument chunks (the same id each time, or
 * an empty one): a streamed Messages answer still holds one `tool_use` block per call, with all of its input.
 */
let upstream: RawAnswerServer;
let server: TestServer;
beforeAll(async () => {
  ({ upstream, server } = await serveOverRawOpenAI());
});
afterAll(async () => {
  await Promise.all([server.stop(), upstream.close()]);
});
/** A call of get_weather streamed in three argument chunks, each naming the call `later` after the first. */
const streamedCall = (later: (index: number) => Record<string, unknown>) => [
  chunk({ role: 'assistant', content: null }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
  }),
  ...['{"city"', ':"Ly', 'on"}'].map((piece, index) =>
    chunk({ tool_calls: [{ index: 0, ...later(index), function: { arguments: piece } }] }),
  ),
  chunk({}, 'tool_calls'),
  'data: [DONE]',
];

const ask = async () => {
  const stream = new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 }).messages.stream({
    model: 'gpt-4o-latest',
    max_tokens: 200,
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'Weather in Lyon?' }],
    // Without failover the chunks pass as they come (with it, each call is held and let out whole).
    stream_failover: false,
  } as Anthropic.MessageStreamParams);
  const starts: string[] = [];
  stream.on('streamEvent', (event) => {
    if (event.type === 'content_block_start') starts.push(event.content_block.type);
  });
  return { message: await stream.finalMessage(), starts };
};

describe('a streamed tool call whose chunks repeat its id', () => {
  for (const [label, later] of [
    ['the same id', () => ({ id: 'call_1', type: 'function' })],
    ['an empty id', () => ({ id: '' })],
  ] as const) {
    it(`is one tool_use block with the whole input (${label})`, async () => {
      upstream.enqueue({ events: streamedCall(later) });
      const { message, starts } = await ask();
      expect(starts).toEqual(['tool_use']);
      expect(message.content).toEqual([
        expect.objectContaining({ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Lyon' } }),
      ]);
      expect(message.stop_reason).toBe('tool_use');
    });
  }

  it('a second call under the same index with another id is a block of its own', async () => {
    const call = (id: string, city: string) =>
      chunk({
        tool_calls: [
          { index: 0, id, type: 'function', function: { name: 'get_weather', arguments: `{"city":"${city}"}` } },
        ],
      });
    upstream.enqueue({
      events: [call('call_1', 'Lyon'), call('call_2', 'Nice'), chunk({}, 'tool_calls'), 'data: [DONE]'],
    });
    const { message, starts } = await ask();
    expect(starts).toEqual(['tool_use', 'tool_use']);
    expect(message.content).toEqual([
      expect.objectContaining({ id: 'call_1', input: { city: 'Lyon' } }),
      expect.objectContaining({ id: 'call_2', input: { city: 'Nice' } }),
    ]);
  });
});
