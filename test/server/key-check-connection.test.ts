import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

// One kept-alive connection carrying several callers' keys, as a proxy's does: each request is judged by its own key
// (nothing about a key may be remembered per connection in a way that lets the next request borrow it).
let test: TestServer;
let connection: Client;
beforeAll(async () => {
  test = await startTestServer();
  connection = new Client(test.url, { pipelining: 1 });
});
afterAll(async () => {
  await connection.close();
  await test.stop();
});

async function mint(by: string): Promise<{ key: string; id: string }> {
  const response = await api(test, '/v1/keys', { key: by, body: { scopes: ['chat', 'keys:create'] } });
  expect(response.status).toBe(201);
  return jsonOf(response);
}

/** `GET /v1/keys` on the one connection: the status and the ids of the keys the presented key sees. */
async function keysSeen(key: string): Promise<{ status: number; ids: string[] }> {
  const answer = await connection.request({
    path: '/v1/keys',
    method: 'GET',
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await answer.body.json()) as { data?: Array<{ id: string }> };
  return { status: answer.statusCode, ids: (body.data ?? []).map((row) => row.id).sort() };
}

describe('the key check on a kept-alive connection', () => {
  it('judges each request by its own key, whatever the connection presented before, and sees revocation', async () => {
    const parent = await mint(test.key);
    const child = await mint(parent.key);
    const other = await mint(test.key);
    const unknown = `${other.key.slice(0, -1)}${other.key.endsWith('x') ? 'y' : 'x'}`;

    expect(await keysSeen(parent.key)).toEqual({ status: 200, ids: [child.id] });
    expect(await keysSeen(other.key)).toEqual({ status: 200, ids: [] });
    // The same length and form as the key before it on this connection, one character apart.
    expect((await keysSeen(unknown)).status).toBe(401);
    expect(await keysSeen(parent.key)).toEqual({ status: 200, ids: [child.id] });
    expect(await keysSeen(parent.key)).toEqual({ status: 200, ids: [child.id] });

    await test.server.keys.revoke(parent.id);
    expect((await keysSeen(parent.key)).status).toBe(401);
    expect((await keysSeen(child.key)).status).toBe(401);
    expect((await keysSeen(other.key)).status).toBe(200);
  });
});
