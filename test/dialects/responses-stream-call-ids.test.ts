import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import type { TestServer } from '../server/start-test-server.ts';
import { chunk, serveOverRawOpenAI } from './raw-openai-upstream.ts';

/**
 * An OpenAI-compatible provider that gives a streamed tool call an empty id: the Responses stream's function call
 * still has a `call_id` (Codex answers it by that id; an empty one matched nothing).
 */
let upstream: RawAnswerServer;
let server: TestServer;
beforeAll(async () => {
  ({ upstream, server } = await serveOverRawOpenAI());
});
afterAll(async () => {
  await Promise.all([server.stop(), upstream.close()]);
});

describe('a streamed tool call with an empty id, in the Responses dialect', () => {
  it('gets a call_id of its own', async () => {
    upstream.enqueue({
      events: [
        chunk({ role: 'assistant', content: null }),
        chunk({
          tool_calls: [
            { index: 0, id: '', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } },
          ],
        }),
        chunk({}, 'tool_calls'),
        'data: [DONE]',
      ],
    });
    const stream = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 }).responses.stream({
      model: 'gpt-4o-latest',
      input: 'Weather in Lyon?',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false }],
      stream_failover: false,
    } as unknown as Parameters<OpenAI['responses']['stream']>[0]);
    const response = await stream.finalResponse();
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Lyon"}' });
    expect((call as { call_id: string }).call_id).toMatch(/^call_\w+/);
  });
});
