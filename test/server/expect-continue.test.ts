import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * `Expect: 100-continue` (curl sends it for large uploads, Node's and other clients on request): the server invites
 * the body only once a route reads it, after the key, its scope and its limits are checked. A request refused before
 * that (a wrong key, a body declared too large, a key at its limit) is answered without `100 Continue`, so the upload
 * is never sent, and on a connection that closes (the client may still send it, and no one would read it).
 */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => test?.stop());

interface Exchange {
  /** Whether `100 Continue` came before the answer. */
  invited: boolean;
  status: number;
  connection: string | undefined;
  body: string;
}

/**
 * A POST that sends its body only when invited (as curl does with `Expect`, without curl's one-second guess).
 * `declaredLength`: the `Content-Length` to announce; `origin`: another server than the file's.
 */
function expecting(
  path: string,
  key: string,
  body: string,
  options: { declaredLength?: number; origin?: string; headers?: Record<string, string> } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let invited = false;
    const outgoing = request(`${options.origin ?? test.url}${path}`, {
      method: 'POST',
      // A connection each: a refused upload's connection is not one to send the next request on.
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': String(options.declaredLength ?? Buffer.byteLength(body)),
        expect: '100-continue',
        ...options.headers,
      },
    });
    outgoing.on('continue', () => {
      invited = true;
      outgoing.end(body);
    });
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ invited, status: response.statusCode ?? 0, connection: response.headers.connection, body: text }),
      );
      if (!invited) outgoing.destroy();
    });
    outgoing.on('error', (error) => {
      if (!outgoing.destroyed) reject(error);
    });
    outgoing.flushHeaders();
  });
}

const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });

describe('Expect: 100-continue', () => {
  it('invites the body of an accepted request, and answers it', async () => {
    const exchange = await expecting('/v1/chat/completions', test.key, chat);
    expect(exchange).toMatchObject({ invited: true, status: 200 });
    expect(JSON.parse(exchange.body).object).toBe('chat.completion');
  });

  it('refuses a wrong key without inviting the upload, and closes the connection', async () => {
    const exchange = await expecting('/v1/chat/completions', 'sy-not-a-key', chat);
    expect(exchange).toMatchObject({ invited: false, status: 401, connection: 'close' });
  });

  it('refuses a body declared over the limit without inviting it', async () => {
    const exchange = await expecting('/v1/chat/completions', test.key, chat, { declaredLength: 1024 * 1024 });
    expect(exchange).toMatchObject({ invited: false, status: 413, connection: 'close' });
  });

  it('refuses a key without the scope before its body', async () => {
    const created = await api(test, '/v1/keys', { body: { name: 'models only', scopes: ['models'] } });
    const { key } = await jsonOf(created);
    const exchange = await expecting('/v1/chat/completions', key, chat);
    expect(exchange).toMatchObject({ invited: false, status: 403, connection: 'close' });
  });

  it('refuses a key over its rate before its body', async () => {
    const limited = await startTestServer({ requestsPerMinutePerKey: 1 });
    try {
      const first = await expecting('/v1/chat/completions', limited.key, chat, { origin: limited.url });
      expect(first).toMatchObject({ invited: true, status: 200 });
      const second = await expecting('/v1/chat/completions', limited.key, chat, { origin: limited.url });
      expect(second).toMatchObject({ invited: false, status: 429, connection: 'close' });
    } finally {
      await limited.stop();
    }
  });

  it('invites the bodies of the routes that read theirs as a Web request (MCP)', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    });
    const exchange = await expecting('/mcp', test.key, initialize, {
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(exchange).toMatchObject({ invited: true, status: 200 });
    expect(exchange.body).toContain('"protocolVersion"');
  });

  it('curl, uploading 2 MB with a wrong key, gets the 401 without sending the upload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-expect-'));
    try {
      writeFileSync(join(dir, 'big.json'), `{"model":"gpt-4o-mini","messages":[],"pad":"${'a'.repeat(2_000_000)}"}`);
      const curl = (key: string) =>
        promisify(execFile)('curl', [
          '-sv',
          '-o',
          '/dev/null',
          '-H',
          `Authorization: Bearer ${key}`,
          '-H',
          'content-type: application/json',
          '--data-binary',
          `@${join(dir, 'big.json')}`,
          `${test.url}/v1/chat/completions`,
        ]);
      // curl says what it sent and received on stderr: `> ` its headers, `< ` the server's.
      const refused = (await curl('sy-not-a-key')).stderr;
      expect(refused).toContain('> Expect: 100-continue');
      expect(refused).toContain('< HTTP/1.1 401');
      expect(refused).not.toContain('100 Continue');
      const tooLarge = (await curl(test.key)).stderr;
      expect(tooLarge).toContain('< HTTP/1.1 413');
      expect(tooLarge).not.toContain('100 Continue');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
