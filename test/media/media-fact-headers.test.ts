import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * A speech answer's facts go in headers (its body is audio). A model name the caller wrote with characters a header
 * cannot hold (`openai/voix-é€`, answered by a provider that takes any name) made Node refuse the header and the
 * socket was destroyed: the caller lost an answer it paid for. The name is sent percent-encoded instead.
 */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ mock: true });
});
afterAll(() => test.stop());

describe('media answers whose facts are headers', () => {
  it('keep a model name no header can hold, percent-encoded', async () => {
    const model = 'openai/voix-é€';
    const response = await api(test, '/v1/audio/speech', { body: { model, input: 'hello', voice: 'alloy' } });
    expect(response.status).toBe(200);
    expect(decodeURIComponent(response.headers.get('x-switchyard-model') ?? '')).toContain('voix-é€');
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('keep a name holding a lone surrogate (no URI can encode one), as its well-formed form', async () => {
    const response = await api(test, '/v1/audio/speech', {
      body: { model: 'openai/x\ud800', input: 'hi', voice: 'alloy' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-model')).toContain('%EF%BF%BD');
  });
});
