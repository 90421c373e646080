import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

const messages = [{ role: 'user' as const, content: 'hi' }];

/**
 * How a request ends, whatever happens around it. Requests pipelined on one keep-alive connection: Node answers them
 * in order, the second's reply queued behind the first's. A client gone while the first is answered ends both: each
 * is logged, its call aborted, its slot given back, and the server's count of requests in flight (what shutdown
 * drains, and what the journal's lone write asks) comes back to zero. A log that throws, a client that stops reading.
 */
let open: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (open = resolve));
const mock = new MockProvider({
  respond: async () => {
    await gate;
    return 'late';
  },
});
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ mock, maxConcurrentPerKey: 2 });
});
afterAll(() => test.stop());

function post(body: string, to: TestServer = test): string {
  const head = [
    'POST /v1/chat/completions HTTP/1.1',
    `Host: ${new URL(to.url).host}`,
    `Authorization: Bearer ${to.key}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

describe('two requests pipelined on one connection, the client gone while the first is answered', () => {
  it('ends both: two request lines (499), the key free again, nothing left in flight', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'hi' }] });
    const socket = connect(Number(new URL(test.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(post(body) + post(body));
    await expect.poll(() => mock.calls.length).toBeGreaterThanOrEqual(1);
    socket.destroy();
    const requestLines = () =>
      test.logs.filter((line) => line.msg === 'request' && line.path === '/v1/chat/completions');
    await expect.poll(() => requestLines().length, { timeout: 5_000 }).toBe(2);
    expect(requestLines().map((line) => line.status)).toEqual([499, 499]);
    open();
    // Both of the key's two slots are free: two calls at once pass.
    const client = test.openai();
    const both = await Promise.all([
      client.chat.completions.create({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'a' }] }),
      client.chat.completions.create({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'b' }] }),
    ]);
    expect(both).toHaveLength(2);
  });
});

describe("a program's log that throws on a request's line", () => {
  it('fails neither the request nor the process, and the next request is answered', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-throwing-log-'));
    const server = await startServer({
      port: 0,
      dataDir,
      mock: true,
      log: (line) => {
        if (line.msg === 'request') throw new Error('the log is broken');
      },
    });
    try {
      for (let call = 0; call < 2; call++) expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a client that stops reading a stream', () => {
  it('is cut off once nothing could be sent to it for sendTimeoutMs: its slot comes back, its call ends', async () => {
    // An answer of ~32 MB: more than loopback's socket buffers hold (up to ~10 MB between the two ends here), so the
    // server must wait for the client to read.
    const long = new MockProvider({ respond: () => 'word '.repeat(6_400_000), chunkSize: 262_144 });
    const stalled = await startTestServer({ mock: long, maxConcurrentPerKey: 1, sendTimeoutMs: 500 });
    try {
      const body = JSON.stringify({
        model: 'gpt-4o-latest',
        stream: true,
        messages: [{ role: 'user', content: 'go' }],
      });
      const socket = connect(Number(new URL(stalled.url).port), '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(post(body, stalled));
      // Reads the first bytes, then never again.
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.pause();
      // Cut off on the server's side (what the client has not read yet stays in the kernel's buffers).
      const line = () => stalled.logs.find((entry) => entry.msg === 'request' && entry.path === '/v1/chat/completions');
      await expect.poll(line, { timeout: 10_000 }).toMatchObject({ status: 200, aborted: true });
      socket.destroy();
      // The key's one slot is free again.
      const after = await stalled.openai().chat.completions.create({ model: 'gpt-4o-latest', messages });
      expect(after.choices[0]?.message.content).toBeTruthy();
    } finally {
      await stalled.stop();
    }
  });
});
