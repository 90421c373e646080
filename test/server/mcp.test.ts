import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as HttpClient } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDeployment } from '../deployments/fixtures.ts';
import { api, rawRequest, startTestServer, type TestServer } from './start-test-server.ts';

let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
  await test.server.deployments.put!(makeDeployment({ agent_id: 'support', number: 1 }));
  await test.server.deployments.put!(makeDeployment({ agent_id: 'support', number: 2 }));
});
afterAll(async () => {
  await test.stop();
});

async function connect(headers: Record<string, string> = { authorization: `Bearer ${test.key}` }): Promise<Client> {
  const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): unknown {
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
}

describe('/mcp', () => {
  it('lists the tools with strict, described input schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'add_annotations',
      'add_inputs_to_experiment',
      'add_versions_to_experiment',
      'create_api_key',
      'create_experiment',
      'create_or_update_deployment',
      'get_annotations',
      'get_completion',
      'get_experiment',
      'list_agents',
      'list_api_keys',
      'list_deployments',
      'list_experiments',
      'list_mcp_calls',
      'list_models',
      'query_completions',
      'revoke_api_key',
      'update_api_key',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      for (const property of Object.values(tool.inputSchema.properties ?? {}))
        expect((property as { description?: string }).description).toBeTruthy();
      expect(tool.description).toBeTruthy();
    }
    expect(tools.find((tool) => tool.name === 'list_deployments')!.inputSchema.required).toEqual(['agent_id']);
    await client.close();
  });

  it('list_models returns catalog rows, filtered by reasoning', async () => {
    const client = await connect();
    const all = textOf(await client.callTool({ name: 'list_models', arguments: {} })) as Array<Record<string, unknown>>;
    const reasoning = textOf(await client.callTool({ name: 'list_models', arguments: { reasoning: true } })) as Array<
      Record<string, unknown>
    >;
    expect(Object.keys(all[0]!).sort()).toEqual([
      'context_window',
      'id',
      'price_in',
      'price_out',
      'reasoning',
      'release_date',
    ]);
    expect(reasoning.length).toBeGreaterThan(0);
    expect(reasoning.length).toBeLessThan(all.length);
    expect(reasoning.every((row) => row.reasoning === true)).toBe(true);
    await client.close();
  });

  it("list_deployments returns one agent's deployments and requires agent_id", async () => {
    const client = await connect();
    const deployments = textOf(
      await client.callTool({ name: 'list_deployments', arguments: { agent_id: 'support' } }),
    ) as Array<{ id: string }>;
    expect(deployments.map((deployment) => deployment.id)).toEqual(['support:production#2', 'support:production#1']);
    expect(textOf(await client.callTool({ name: 'list_deployments', arguments: { agent_id: 'nobody' } }))).toEqual([]);
    const missing = await client.callTool({ name: 'list_deployments', arguments: {} });
    expect(missing.isError).toBe(true);
    const extra = await client.callTool({ name: 'list_models', arguments: { reasoning: true, colour: 'blue' } });
    expect(extra.isError).toBe(true);
    await client.close();
  });

  it('create_api_key returns a working key once', async () => {
    const client = await connect();
    const created = textOf(await client.callTool({ name: 'create_api_key', arguments: { name: 'from mcp' } })) as {
      key: string;
      prefix: string;
      name: string;
    };
    expect(created.key).toMatch(/^sy-/);
    expect(created).toMatchObject({ name: 'from mcp', prefix: created.key.slice(0, 11) });
    expect((await api(test, '/v1/deployments', { key: created.key })).status).toBe(200);
    await client.close();
  });

  it('refuses a client without a valid key with 401', async () => {
    await expect(connect({})).rejects.toMatchObject({ code: 401 });
    await expect(connect({ authorization: 'Bearer sy-wrong' })).rejects.toMatchObject({ code: 401 });
  });

  it('refuses a foreign Origin or Host with 403 (DNS rebinding)', async () => {
    await expect(connect({ authorization: `Bearer ${test.key}`, origin: 'http://evil.example' })).rejects.toMatchObject(
      { code: 403 },
    );
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const foreignHost = await rawRequest(`${test.url}/mcp`, {
      method: 'POST',
      headers: {
        host: 'evil.example',
        authorization: `Bearer ${test.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });
    expect(foreignHost.status).toBe(403);
    // In JSON-RPC's shape, as an MCP client reads errors; the gateway's own code beside it.
    expect(JSON.parse(foreignHost.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, data: { status: 403, code: 'host_not_allowed' } },
    });
    const sameOrigin = await api(test, '/mcp', {
      body,
      headers: { origin: test.url, accept: 'application/json, text/event-stream' },
    });
    expect(sameOrigin.status).not.toBe(403);
  });

  it('answers an upload it does not read (406) and keeps the keep-alive connection usable', async () => {
    const connection = new HttpClient(test.url, { pipelining: 1 });
    try {
      const upload = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { padding: 'x'.repeat(512 * 1024) },
      });
      const refused = await connection.request({
        path: '/mcp',
        method: 'POST',
        headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json', accept: 'text/plain' },
        body: upload,
      });
      expect(refused.statusCode).toBe(406);
      await refused.body.text();
      // The same socket: it hangs until the server's request timeout if the rest of the upload was left paused.
      const next = await connection.request({ path: '/v1/models', method: 'GET' });
      expect(next.statusCode).toBe(200);
      await next.body.text();
    } finally {
      await connection.close();
    }
  }, 10_000);
});
