import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * The structured call query over HTTP (`POST /v1/calls/query`) and MCP (`query_completions`, through the official
 * SDK client): the answer to the same query is the same on both, errors are the OpenAI shape with the wrong path,
 * and a call just answered is already in the result.
 */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
  const client = test.openai();
  const call = (agent: string, model: string) =>
    client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: `hello from ${agent}` }],
      metadata: { agent_id: agent, workflow_name: 'support', customer: agent === 'triage' ? 'acme' : 'globex' },
    });
  await call('triage', 'gpt-4o-mini');
  await call('triage', 'gpt-4o-mini');
  await call('triage', 'claude-haiku-4-5');
  await call('answer', 'gpt-4o-mini');
});
afterAll(async () => {
  await test.stop();
});

const BY_AGENT = {
  filter: { workflow_name: 'support' },
  group_by: ['agent_id'],
  aggregates: [{ fn: 'count' }, { fn: 'p50', field: 'latency_ms' }, { fn: 'sum', field: 'prompt_tokens' }],
  order_by: [{ field: 'count', direction: 'desc' }],
};

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: 'call-query-test', version: '1.0.0' });
  const requestInit = { headers: { authorization: `Bearer ${test.key}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit }));
  return client;
}

describe('POST /v1/calls/query', () => {
  it('groups, aggregates and orders the calls just made', async () => {
    const response = await api(test, '/v1/calls/query', { method: 'POST', body: BY_AGENT });
    expect(response.status).toBe(200);
    const result = await jsonOf(response);
    expect(result).toMatchObject({ object: 'list', has_more: false });
    expect(result.data.map((row: { agent_id: string; count: number }) => [row.agent_id, row.count])).toEqual([
      ['triage', 3],
      ['answer', 1],
    ]);
    expect(result.data[0].p50_latency_ms).toBeTypeOf('number');
    expect(result.data[0].sum_prompt_tokens).toBeGreaterThan(0);
  });

  it('filters on metadata and returns rows of columns without contents', async () => {
    const body = { filter: { metadata: { customer: 'acme' } }, order_by: [{ field: 'model' }], limit: 2 };
    const result = await jsonOf(await api(test, '/v1/calls/query', { method: 'POST', body }));
    expect(result.has_more).toBe(true);
    expect(result.data).toHaveLength(2);
    expect(result.data.every((row: { agent_id: string }) => row.agent_id === 'triage')).toBe(true);
    expect(JSON.stringify(result)).not.toContain('hello from');
  });

  it('refuses a wrong query with a 400 in the OpenAI shape naming its path; no key: 401', async () => {
    const cases: Array<[unknown, string]> = [
      [{ filter: { agent: 'triage' } }, 'filter.agent'],
      [{ group_by: ['record'] }, 'group_by.0'],
      [{ order_by: [{ field: '1; DROP TABLE calls' }] }, 'order_by.0.field'],
    ];
    for (const [body, param] of cases) {
      const response = await api(test, '/v1/calls/query', { method: 'POST', body });
      expect(response.status, param).toBe(400);
      expect((await jsonOf(response)).error).toMatchObject({ type: 'invalid_request_error', param });
    }
    const notJson = await api(test, '/v1/calls/query', { method: 'POST', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(400);
    expect((await api(test, '/v1/calls/query', { method: 'POST', body: {}, key: null })).status).toBe(401);
  });
});

describe('MCP query_completions and get_completion', () => {
  it('take the same query object and answer as the HTTP route does', async () => {
    const client = await mcpClient();
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate.name === 'query_completions')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual([
      'aggregates',
      'filter',
      'group_by',
      'limit',
      'order_by',
    ]);
    const viaMcp = await client.callTool({ name: 'query_completions', arguments: BY_AGENT });
    const viaHttp = await jsonOf(await api(test, '/v1/calls/query', { method: 'POST', body: BY_AGENT }));
    expect(JSON.parse((viaMcp.content as Array<{ text: string }>)[0]!.text)).toEqual(viaHttp);

    const wrong = await client.callTool({ name: 'query_completions', arguments: { filter: { colour: 'red' } } });
    expect(wrong.isError).toBe(true);
    expect((wrong.content as Array<{ text: string }>)[0]!.text).toContain('colour');
    await client.close();
  });

  it('get_completion returns the whole record of a row', async () => {
    const client = await mcpClient();
    const rows = await client.callTool({ name: 'query_completions', arguments: { filter: { agent_id: 'answer' } } });
    const [row] = JSON.parse((rows.content as Array<{ text: string }>)[0]!.text).data;
    const got = await client.callTool({ name: 'get_completion', arguments: { id: row.id } });
    const record = JSON.parse((got.content as Array<{ text: string }>)[0]!.text);
    expect(record).toMatchObject({ id: row.id, agent_id: 'answer', metadata: { customer: 'globex' } });
    expect(record.input_messages).toEqual([{ role: 'user', content: 'hello from answer' }]);
    const missing = await client.callTool({ name: 'get_completion', arguments: { id: 'nope' } });
    expect(missing.isError).toBe(true);
    await client.close();
  });
});
