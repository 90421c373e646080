import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

let test: TestServer;
const traceId = 'trace-two-agents';
beforeAll(async () => {
  test = await startTestServer();
  // A two-agent workflow: the planner twice, then the writer; plus one unrelated call.
  const client = test.openai();
  const call = (agent: string, content: string, trace = traceId, workflow = 'weekly-report') =>
    client.chat.completions.create({
      model: 'gpt-4o-latest',
      messages: [{ role: 'user', content }],
      metadata: { agent_id: agent, trace_id: trace, workflow_name: workflow },
    });
  await call('planner', 'plan the report');
  await call('planner', 'refine the plan');
  await call('writer', 'write the report');
  await call('other', 'unrelated', 'trace-other', 'triage');
});
afterAll(async () => {
  await test.stop();
});

describe('call records over HTTP', () => {
  it('lists calls newest first, filtered, one page at a time', async () => {
    const all = await jsonOf(await api(test, `/v1/calls?trace_id=${traceId}`));
    expect(all.object).toBe('list');
    expect(all.data.map((call: { agent_id: string }) => call.agent_id)).toEqual(['writer', 'planner', 'planner']);
    const planner = await jsonOf(await api(test, '/v1/calls?agent_id=planner'));
    expect(planner.data).toHaveLength(2);

    const first = await jsonOf(await api(test, `/v1/calls?trace_id=${traceId}&limit=2`));
    expect(first.data).toHaveLength(2);
    const second = await jsonOf(await api(test, `/v1/calls?trace_id=${traceId}&limit=2&cursor=${first.next_cursor}`));
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeNull();

    const since = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect((await jsonOf(await api(test, `/v1/calls?since=${since}`))).data).toEqual([]);
  });

  it('refuses bad query values with a 400 naming the parameter', async () => {
    for (const query of ['limit=abc', 'limit=0', 'since=yesterday', 'cursor=nonsense']) {
      const response = await api(test, `/v1/calls?${query}`);
      expect(response.status, query).toBe(400);
      expect((await jsonOf(response)).error.param).toBe(query.split('=')[0]);
    }
    expect((await api(test, '/v1/costs/daily?days=-3')).status).toBe(400);
  });

  it('filters by dialect, and refuses one no record can have, naming every dialect', async () => {
    expect((await jsonOf(await api(test, '/v1/calls?dialect=chat'))).data).toHaveLength(4);
    expect((await jsonOf(await api(test, '/v1/calls?dialect=transcriptions'))).data).toEqual([]);
    const refused = await api(test, '/v1/calls?dialect=fax');
    expect(refused.status).toBe(400);
    expect((await jsonOf(refused)).error).toMatchObject({
      param: 'dialect',
      message: '"dialect" must be one of chat, responses, messages, embeddings, images, speech, transcriptions.',
    });
  });

  it('returns a workflow with its agents, and 404 for an unknown trace', async () => {
    const workflow = await jsonOf(await api(test, `/v1/workflows/${traceId}`));
    expect(workflow).toMatchObject({ trace_id: traceId, workflow_name: 'weekly-report' });
    expect(workflow.calls.map((call: { agent_id: string }) => call.agent_id)).toEqual(['planner', 'planner', 'writer']);
    expect(workflow.agents.map((agent: { agent_id: string; calls: number }) => [agent.agent_id, agent.calls])).toEqual([
      ['planner', 2],
      ['writer', 1],
    ]);
    expect(workflow.cost_usd).toBeGreaterThan(0);
    const missing = await api(test, '/v1/workflows/no-such-trace');
    expect(missing.status).toBe(404);
  });

  it('adds up cost per day and workflow, and per agent', async () => {
    const daily = await jsonOf(await api(test, '/v1/costs/daily?days=7'));
    expect(daily.object).toBe('list');
    const today = new Date().toISOString().slice(0, 10);
    expect(daily.data.find((row: { workflow_name: string }) => row.workflow_name === 'weekly-report')).toMatchObject({
      day: today,
      calls: 3,
    });
    const onlyTriage = await jsonOf(await api(test, '/v1/costs/daily?workflow_name=triage'));
    expect(onlyTriage.data).toEqual([expect.objectContaining({ workflow_name: 'triage', calls: 1 })]);
    const agents = await jsonOf(await api(test, '/v1/agents'));
    expect(agents.data.map((agent: { agent_id: string }) => agent.agent_id).sort()).toEqual([
      'other',
      'planner',
      'writer',
    ]);
  });

  it('needs a key', async () => {
    for (const path of ['/v1/calls', `/v1/workflows/${traceId}`, '/v1/costs/daily', '/v1/agents']) {
      expect((await api(test, path, { key: null })).status, path).toBe(401);
    }
  });
});
