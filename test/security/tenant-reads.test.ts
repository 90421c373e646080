import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Two tenants an admin key made as docs/teams.md shows (`POST /v1/keys` without scopes: each inherits calls:read of
 * every agent) must not read each other: calls, call queries, one call by id, a conversation, annotations and the
 * server-wide views. Within a tenant, the team key reads its bots' calls; the operator's admin key reads all.
 */
let test: TestServer;
let teamA: { key: string; id: string };
let teamB: { key: string; id: string };
let botA: { key: string; id: string };
const calls: Record<'a' | 'bot' | 'b', string[]> = { a: [], bot: [], b: [] };

async function mint(by: string, body: Record<string, unknown>) {
  const response = await api(test, '/v1/keys', { key: by, body });
  expect(response.status).toBe(201);
  return jsonOf(response) as Promise<{ key: string; id: string }>;
}
async function chat(key: string): Promise<string> {
  const answer = await test.openai(key).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hello' }],
    metadata: { agent_id: 'support' },
  });
  return (answer as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
}

beforeAll(async () => {
  test = await startTestServer();
  // A team that mints its bots asks for keys:create; the other takes what a key minted without scopes inherits.
  teamA = await mint(test.key, { name: 'team-a', scopes: ['chat', 'calls:read', 'annotations:write', 'keys:create'] });
  teamB = await mint(test.key, { name: 'team-b', limits: { budgets: ['20/day'] } });
  botA = await mint(teamA.key, { name: 'bot-a', scopes: ['chat'] });
  calls.a.push(await chat(teamA.key));
  calls.bot.push(await chat(botA.key));
  calls.b.push(await chat(teamB.key));
}, 60_000);
afterAll(() => test.stop());

const listed = async (key: string) =>
  ((await jsonOf(await api(test, '/v1/calls?agent_id=support', { key }))).data as Array<{ id: string }>).map(
    (row) => row.id,
  );
const queried = async (key: string) =>
  ((await jsonOf(await api(test, '/v1/calls/query', { key, body: {} }))).data as Array<{ id: string }>).map(
    (row) => row.id,
  );

describe('tenants an admin key made', () => {
  it('each lists and queries its own calls and its bots’, never the other’s', async () => {
    expect((await listed(teamA.key)).sort()).toEqual([...calls.a, ...calls.bot].sort());
    expect(await listed(teamB.key)).toEqual(calls.b);
    expect((await queried(teamA.key)).sort()).toEqual([...calls.a, ...calls.bot].sort());
    expect(await queried(teamB.key)).toEqual(calls.b);
    expect((await listed(test.key)).length).toBe(3);
  });

  it('one call by id, an annotation or a conversation of the other tenant: the 404 of none', async () => {
    expect((await api(test, `/v1/calls/${calls.a[0]}`, { key: teamB.key })).status).toBe(404);
    expect((await api(test, `/v1/calls/${calls.bot[0]}`, { key: teamA.key })).status).toBe(200);
    const annotated = await api(test, '/v1/annotations', {
      key: teamB.key,
      body: { target: { call_id: calls.a[0] }, text: 'mine now' },
    });
    expect(annotated.status).toBe(404);
    const first = await test.openai(teamA.key).responses.create({ model: 'gpt-4o-mini', input: 'secret' });
    const stolen = await test
      .openai(teamB.key)
      .responses.create({ model: 'gpt-4o-mini', input: 'and?', previous_response_id: first.id })
      .catch((error: unknown) => error);
    expect(stolen).toMatchObject({ status: 404 });
  });

  it('the views over every call (daily costs, agents, a workflow) are the operator’s only', async () => {
    for (const path of ['/v1/costs/daily', '/v1/agents', '/v1/workflows/t-1'])
      expect((await api(test, path, { key: teamA.key })).status, path).toBe(403);
    expect((await api(test, '/v1/costs/daily', { key: test.key })).status).toBe(200);
  });
});
