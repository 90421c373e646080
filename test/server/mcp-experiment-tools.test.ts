import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/** The experiment tools of `/mcp` under the rules of `/v1/experiments`: keys of two agents, and one without chat. */
let test: TestServer;
const keys = { a: '', b: '', readOnly: '' };
const clients: Client[] = [];
type Any = Record<string, any>;

const grant = (scopes: KeyGrant['scopes'], agents: string[]): KeyGrant => ({
  scopes,
  allowed_agents: agents,
  allowed_models: null,
  expires_at: null,
});
const version = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Answer {{question}}' }] };

beforeAll(async () => {
  test = await startTestServer();
  keys.a = (await test.server.keys.create('a', { grant: grant(['chat', 'calls:read'], ['support']) })).key;
  keys.b = (await test.server.keys.create('b', { grant: grant(['chat', 'calls:read'], ['billing']) })).key;
  keys.readOnly = (await test.server.keys.create('ro', { grant: grant(['calls:read'], ['support']) })).key;
}, 30_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await test.stop();
});

async function call(key: string, name: string, args: Record<string, unknown>) {
  const client = new Client({ name: 'experiment-tools-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return { isError: result.isError === true, text, json: (): Any => JSON.parse(text) };
}

describe('experiment MCP tools', () => {
  it('hide one key’s experiment from another key, as one that does not exist', async () => {
    const created = await call(keys.a, 'create_experiment', {
      agent_id: 'support',
      versions: [version],
      inputs: [{ variables: { question: 'why?' } }],
    });
    expect(created.isError, created.text).toBe(false);
    const id = created.json().id as string;
    const done = await call(keys.a, 'get_experiment', { experiment_id: id, max_wait_seconds: 30 });
    expect(done.json()).toMatchObject({ status: 'completed', cells: [{ status: 'completed' }] });
    for (const [name, args] of [
      ['get_experiment', { experiment_id: id }],
      ['add_versions_to_experiment', { experiment_id: id, versions: [version] }],
      ['add_inputs_to_experiment', { experiment_id: id, inputs: [{ variables: { question: 'how?' } }] }],
    ] as const) {
      const refused = await call(keys.b, name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.text, name).toContain(`No experiment has the id "${id}"`);
    }
    const listed = (await call(keys.b, 'list_experiments', {})).json();
    expect(listed.data.map((header: Any) => header.id)).not.toContain(id);
    expect((await call(keys.a, 'list_experiments', { agent_id: 'support' })).json().data[0].id).toBe(id);
    const forOther = await call(keys.b, 'create_experiment', { agent_id: 'support' });
    expect(forOther.isError).toBe(true);
    expect(forOther.text).toMatch(/may not act as the agent "support"/);
  });

  it('need the chat scope to write, and check their arguments', async () => {
    const refused = await call(keys.readOnly, 'create_experiment', { agent_id: 'support' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/lacks the scope "chat"/);
    const tooLong = await call(keys.a, 'get_experiment', { experiment_id: 'exp_x', max_wait_seconds: 61 });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.text).toMatch(/max_wait_seconds/);
    const unknown = await call(keys.a, 'create_experiment', { agent_id: 'support', colour: 'red' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/colour/);
  });

  it('start running the cells an add makes', async () => {
    const created = (await call(keys.a, 'create_experiment', { agent_id: 'support', versions: [version] })).json();
    expect(created.status).toBe('idle');
    const added = await call(keys.a, 'add_inputs_to_experiment', {
      experiment_id: created.id,
      inputs: [{ variables: { question: 'one' } }, { variables: { question: 'two' } }],
    });
    expect(added.json().status).toBe('running');
    const done = (await call(keys.a, 'get_experiment', { experiment_id: created.id, max_wait_seconds: 30 })).json();
    expect(done.cells.map((cell: Any) => cell.status)).toEqual(['completed', 'completed']);
  });
});
