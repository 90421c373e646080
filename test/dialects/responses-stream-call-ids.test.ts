import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawAnswerServer, startRawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * An OpenAI-compatible provider that gives a streamed tool call an empty id: the Responses stream's function call
 * still has a `call_id` (Codex answers it by that id; an empty one matched nothing).
 */
let upstream: RawAnswerServer;
let server: TestServer;
beforeAll(async () => {
  upstream = await startRawAnswerServer();
  server = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: { openai: { apiKey: 'sk-upstream', baseURL: `${upstream.origin}/v1` } },
    },
  });
});
afterAll(async () => {
  await Promise.all([server.stop(), upstream.close()]);
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-2024-11-20',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}`;

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
