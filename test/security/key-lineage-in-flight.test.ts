import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The server's in-flight limit for keys without their own holds for a tenant's whole tree, as its rate limit does:
 * a team key that mints bots cannot multiply its requests in flight by the number of its bots (100 bots of a team
 * under a limit of 64 each held 6,400). Another tenant's requests are not counted against it.
 */
const messages = [{ role: 'user' as const, content: 'hi' }];
let release: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (release = resolve));
const mock = new MockProvider({
  respond: async () => {
    await gate;
    return 'done';
  },
});
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ mock, maxConcurrentPerKey: 2 });
});
afterAll(() => test.stop());

async function mint(by: string, body: Record<string, unknown>): Promise<{ key: string; id: string }> {
  const response = await api(test, '/v1/keys', { key: by, body });
  expect(response.status).toBe(201);
  return (await jsonOf(response)) as { key: string; id: string };
}
const call = (key: string) => api(test, '/v1/chat/completions', { key, body: { model: 'gpt-4o-latest', messages } });

describe('the default in-flight limit along a key’s lineage', () => {
  it('counts a team’s bots against the team, not each bot alone; another team keeps its own', async () => {
    const team = await mint(test.key, { name: 'team', scopes: ['chat', 'keys:create'] });
    const bots = [await mint(team.key, { name: 'bot-1', scopes: ['chat'] })];
    bots.push(await mint(team.key, { name: 'bot-2', scopes: ['chat'] }));
    const other = await mint(test.key, { name: 'other team', scopes: ['chat'] });
    const held = [call(bots[0]!.key), call(bots[0]!.key)];
    await expect.poll(() => mock.calls.length).toBe(2);

    const refused = await call(bots[1]!.key);
    expect(refused.status).toBe(429);
    expect((await jsonOf(refused)).error).toMatchObject({
      code: 'concurrency_limit_exceeded',
      message: expect.stringContaining(`The key ${team.id} that minted this one already has 2 requests in flight`),
    });
    expect((await call(team.key)).status).toBe(429);
    // Refused by the team's limit, the second bot took none of its own: it is not held after.
    const otherCall = call(other.key);
    await expect.poll(() => mock.calls.length).toBe(3);
    release();
    expect((await Promise.all([...held, otherCall])).map((response) => response.status)).toEqual([200, 200, 200]);
    expect((await Promise.all([call(bots[1]!.key), call(bots[1]!.key)])).map((r) => r.status)).toEqual([200, 200]);
  });
});
