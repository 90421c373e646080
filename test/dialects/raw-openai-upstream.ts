import { type RawAnswerServer, startRawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/** A serve whose OpenAI provider is a raw answer server: each test writes the provider's stream line by line. */
export async function serveOverRawOpenAI(): Promise<{ upstream: RawAnswerServer; server: TestServer }> {
  const upstream = await startRawAnswerServer();
  const server = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: { openai: { apiKey: 'sk-upstream', baseURL: `${upstream.origin}/v1` } },
    },
  });
  return { upstream, server };
}

/** One `chat.completion.chunk` event of a stream, as OpenAI writes it. */
export const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-2024-11-20',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}`;
