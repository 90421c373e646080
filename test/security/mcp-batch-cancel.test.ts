import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * A batch that cancels one of its own requests: the SDK drops the cancelled request's answer, and the batch's JSON
 * answer waited for it for good, holding the key's slot in flight; 64 such requests locked the key out of every
 * route. Refused now, and the key's slots stay free.
 */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ maxConcurrentPerKey: 2 });
});
afterAll(() => test.stop());

const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };
const cancelling = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
];

describe('an MCP batch that cancels its own request', () => {
  it('is refused at once, and holds no slot', async () => {
    const { key } = await test.server.keys.create('canceller');
    for (let round = 0; round < 3; round++) {
      const answer = await Promise.race([
        api(test, '/mcp', { method: 'POST', key, body: cancelling, headers }),
        new Promise<'stalled'>((resolve) => setTimeout(() => resolve('stalled'), 5_000)),
      ]);
      expect(answer).not.toBe('stalled');
      expect((answer as Response).status).toBe(400);
      expect((await jsonOf(answer as Response)).error.message).toContain('cancels');
    }
    expect((await api(test, '/v1/models', { key })).status).toBe(200);
  }, 30_000);
});
