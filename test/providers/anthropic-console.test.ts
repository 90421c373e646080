import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { collect } from '../helpers/chunks.ts';

/**
 * Issue 25, section 4: the Anthropic SDK's `messages.create` console.warns on every call to a model it lists as
 * deprecated (claude-sonnet-4-5: "… will reach end-of-life on November 30th, 2026") and on `thinking.type: enabled`
 * for Opus 4.6: lines in the gateway's own output, eleven in one test run. The adapter keeps them out; the
 * catalog's `model_deprecated` warning tells the caller instead, in the answer.
 */

let server: FakeAnthropicServer;
beforeAll(async () => {
  server = await startFakeAnthropicServer();
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

const gateway = () =>
  createGateway({
    env: {},
    providers: { anthropic: { apiKey: 'sk-ant-test-0123456789abcdef', baseURL: server.url } },
  });
const hello = [{ role: 'user' as const, content: 'Say hello' }];

describe('the Anthropic SDK writes nothing to the console', () => {
  it('for a deprecated model, answered or streamed', async () => {
    const warn = vi.spyOn(console, 'warn');
    await gateway().createCompletion({ model: 'claude-sonnet-4-5', messages: hello });
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'claude-sonnet-4-5-20250929', stream: false });
    const stream = await gateway().createCompletion({ model: 'claude-sonnet-4-5', messages: hello, stream: true });
    await collect(stream);
    expect(server.requests.at(-1)?.body).toMatchObject({ stream: true });
    expect(warn).not.toHaveBeenCalled();
  });

  it('for Opus 4.6 with a thinking budget', async () => {
    const warn = vi.spyOn(console, 'warn');
    await gateway().createCompletion({ model: 'claude-opus-4-6', messages: hello, reasoning_effort: 'low' });
    expect(warn).not.toHaveBeenCalled();
  });
});
