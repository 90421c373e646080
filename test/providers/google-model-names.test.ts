import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError } from '../../src/index.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';

/**
 * A model name the caller wrote goes into the Gemini API's path (`/v1beta/models/<name>:generateContent`): a name with
 * `..`, `?` or `#` would make the gateway POST, with its own key, to another of Google's endpoints. Each is refused
 * as the caller's fault before any request leaves, on both transports and for chat, embeddings and images alike.
 */
let server: FakeGeminiServer;
beforeAll(async () => {
  server = await startFakeGeminiServer();
});
afterAll(() => server.close());

const gateway = (transport: 'wire' | 'sdk') =>
  createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: { google: { apiKey: 'AIzaSyFakeKeyForTests0123456789', baseURL: server.url, transport } },
  });
const NAMES = ['../cachedContents?x=', '../../v1/files', 'gemini-2.5-flash/../../tunedModels/x', 'x#y', '%2e%2e/files'];

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => 'answered',
    (error: unknown) => error,
  );
}

describe('Gemini model names in the path', () => {
  for (const transport of ['wire', 'sdk'] as const) {
    it(`are refused before any request (${transport} transport)`, async () => {
      server.reset();
      for (const name of NAMES) {
        const error = await refusal(
          gateway(transport).createCompletion({ model: `google/${name}`, messages: [{ role: 'user', content: 'hi' }] }),
        );
        expect(error, name).toBeInstanceOf(InvalidRequestError);
        expect(error, name).toMatchObject({ status: 400, param: 'model' });
      }
      expect(server.requests.map((request) => request.path)).toEqual([]);
    });
  }

  it('are refused for embeddings and images too', async () => {
    server.reset();
    const embedded = await refusal(gateway('wire').createEmbedding({ model: 'google/../files', input: 'hi' }));
    expect(embedded).toBeInstanceOf(InvalidRequestError);
    const drawn = await refusal(gateway('wire').createImage({ model: 'google/../files', prompt: 'a cat' }));
    expect(drawn).toBeInstanceOf(InvalidRequestError);
    expect(server.requests.map((request) => request.path)).toEqual([]);
  });

  it('a model name of Google’s own shapes still goes through', async () => {
    server.reset();
    const answer = await gateway('wire').createCompletion({
      model: 'google/gemini-2.5-flash-preview-05-20',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash-preview-05-20:generateContent');
  });
});
