import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * `list_agents` and `create_or_update_deployment` through the official MCP SDK client, with two keys limited to
 * one agent each (alpha, beta) that must neither see nor write each other's agents.
 */
let test: TestServer;
const keys: Record<'alice' | 'bob' | 'reader' | 'chatOnly', string> = { alice: '', bob: '', reader: '', chatOnly: '' };
const clients: Client[] = [];

const grant = (scopes: KeyGrant['scopes'], agents: string[] | null): KeyGrant => ({
  scopes,
  allowed_agents: agents,
  allowed_models: null,
  expires_at: null,
});
const writer: KeyGrant['scopes'] = ['chat', 'calls:read', 'deployments:read', 'deployments:write'];

beforeAll(async () => {
  test = await startTestServer();
  const create = async (name: string, value: KeyGrant) => (await test.server.keys.create(name, { grant: value })).key;
  keys.alice = await create('alice', grant(writer, ['alpha']));
  keys.bob = await create('bob', grant(writer, ['beta']));
  keys.reader = await create('reader', grant(['deployments:read'], ['alpha']));
  keys.chatOnly = await create('chat', grant(['chat'], null));
  const openai = test.openai();
  for (const agent of ['alpha', 'alpha', 'gamma']) {
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `hello from ${agent}` }],
      metadata: { agent_id: agent },
    });
  }
  await test.server.deployments.put!(makeDeployment({ agent_id: 'beta', number: 4 }));
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await test.stop();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'agent-tools-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function call(key: string, name: string, args: Record<string, unknown>) {
  const result = await (await connect(key)).callTool({ name, arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return { isError: result.isError === true, text, json: () => JSON.parse(text) };
}

const ticketVersion = (content: string, properties?: Record<string, unknown>) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...(properties
    ? { output_schema: { json_schema: { type: 'object', properties, required: Object.keys(properties) } } }
    : {}),
});

describe('the tools\u2019 input schemas', () => {
  it('constrain every member (no empty schema, which the MCP Inspector\u2019s --strict reports)', async () => {
    const { tools } = await (await connect(test.key)).listTools();
    const empty: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      if (!Array.isArray(node) && Object.keys(node).length === 0) empty.push(path);
      for (const [key, value] of Object.entries(node)) walk(value, `${path}.${key}`);
    };
    for (const name of ['list_agents', 'create_or_update_deployment']) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      expect(tool.inputSchema.additionalProperties, name).toBe(false);
      walk(tool.inputSchema, name);
    }
    expect(empty).toEqual([]);
  });
});

describe('list_agents', () => {
  it('merges call records and deployments; an admin key sees every agent', async () => {
    const { data, has_more } = (await call(test.key, 'list_agents', {})).json();
    expect(has_more).toBe(false);
    expect(data.map((agent: { agent_id: string }) => agent.agent_id)).toEqual(['alpha', 'beta', 'gamma']);
    const [alpha, beta] = data;
    expect(alpha).toMatchObject({ calls: 2, deployments: 0, latest_deployments: {} });
    expect(alpha.cost_usd).toBeGreaterThan(0);
    expect(Date.parse(alpha.first_call_at)).toBeLessThanOrEqual(Date.parse(alpha.last_call_at));
    expect(beta).toMatchObject({ calls: 0, first_call_at: null, deployments: 1 });
    expect(beta.latest_deployments).toEqual({ production: 'beta:production#4' });
    const page = (await call(test.key, 'list_agents', { limit: 1 })).json();
    expect(page).toMatchObject({ has_more: true, data: [{ agent_id: 'alpha' }] });
  });

  it('an agent-limited key sees only its agents; one without a read scope is refused', async () => {
    const alice = (await call(keys.alice, 'list_agents', {})).json();
    expect(alice.data.map((agent: { agent_id: string }) => agent.agent_id)).toEqual(['alpha']);
    const bob = (await call(keys.bob, 'list_agents', {})).json();
    expect(bob.data).toEqual([expect.objectContaining({ agent_id: 'beta', calls: 0, deployments: 1 })]);
    // deployments:read alone: the deployment side only, so alpha shows no calls.
    const reader = await call(keys.reader, 'list_agents', {});
    expect(reader.isError).toBe(false);
    expect(reader.json().data.every((agent: { calls: number }) => agent.calls === 0)).toBe(true);
    const refused = await call(keys.chatOnly, 'list_agents', {});
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('deployments:read');
  });
});

describe('create_or_update_deployment', () => {
  it('creates #1, then the next number; the same content is not stored twice; the deployment is callable', async () => {
    const first = await call(keys.alice, 'create_or_update_deployment', {
      agent_id: 'alpha',
      version: ticketVersion('Answer {{ticket}}'),
    });
    expect(first.isError, first.text).toBe(false);
    expect(first.json()).toMatchObject({
      created: true,
      previous_id: null,
      breaks: [],
      model: 'switchyard/deployment/alpha:production#1',
      deployment: { id: 'alpha:production#1', agent_id: 'alpha', environment: 'production', number: 1 },
    });
    const again = await call(keys.alice, 'create_or_update_deployment', {
      agent_id: 'alpha',
      version: ticketVersion('Answer {{ticket}}'),
    });
    expect(again.json()).toMatchObject({ created: false, deployment: { id: 'alpha:production#1' } });
    const next = await call(keys.alice, 'create_or_update_deployment', {
      agent_id: 'alpha',
      version: ticketVersion('Answer this: {{ticket}}'),
      description: 'clearer prompt',
    });
    expect(next.json()).toMatchObject({ created: true, previous_id: 'alpha:production#1' });
    expect(next.json().deployment.id).toBe('alpha:production#2');
    const answer = await test.openai(keys.alice).chat.completions.create({
      model: 'switchyard/deployment/alpha:production#2',
      input: { ticket: 'it broke' },
    } as never);
    expect(answer.choices[0]?.message.content).toBeTruthy();
  });

  it('refuses a version that breaks callers, naming the break, unless forced', async () => {
    const base = { agent_id: 'alpha', environment: 'staging' };
    const schema = { answer: { type: 'string' }, score: { type: 'number' } };
    await call(keys.alice, 'create_or_update_deployment', { ...base, version: ticketVersion('{{ticket}}', schema) });
    const newVariable = await call(keys.alice, 'create_or_update_deployment', {
      ...base,
      version: ticketVersion('{{ticket}} for {{customer}}', schema),
    });
    expect(newVariable.isError).toBe(true);
    expect(newVariable.text).toContain('alpha:staging#1');
    expect(newVariable.text).toContain('input.customer');
    const retyped = await call(keys.alice, 'create_or_update_deployment', {
      ...base,
      version: ticketVersion('{{ticket}}', { answer: { type: 'string' }, score: { type: 'string' } }),
    });
    expect(retyped.isError).toBe(true);
    expect(retyped.text).toContain('output.score: its type changed from number to string');
    const removed = await call(keys.alice, 'create_or_update_deployment', {
      ...base,
      version: ticketVersion('{{ticket}}', { answer: { type: 'string' } }),
    });
    expect(removed.text).toContain('output.score: removed');
    const staging = async () =>
      (await call(keys.alice, 'list_deployments', { agent_id: 'alpha' }))
        .json()
        .filter((deployment: { environment: string }) => deployment.environment === 'staging');
    expect(await staging()).toHaveLength(1);

    const forced = await call(keys.alice, 'create_or_update_deployment', {
      ...base,
      version: ticketVersion('{{ticket}}', { answer: { type: 'string' } }),
      force: true,
    });
    expect(forced.json()).toMatchObject({ created: true, breaks: ['output.score: removed'] });
    expect(forced.json().deployment.id).toBe('alpha:staging#2');
    expect(await staging()).toHaveLength(2);
  });

  it("another agent's deployment cannot be written, and refusing it tells nothing of that agent", async () => {
    const version = ticketVersion('{{ticket}}');
    const intoBeta = await call(keys.alice, 'create_or_update_deployment', { agent_id: 'beta', version });
    const intoNobody = await call(keys.alice, 'create_or_update_deployment', { agent_id: 'nobody', version });
    expect(intoBeta.isError).toBe(true);
    expect(intoBeta.text.replaceAll('beta', 'X')).toBe(intoNobody.text.replaceAll('nobody', 'X'));
    const intoAlpha = await call(keys.bob, 'create_or_update_deployment', { agent_id: 'alpha', version });
    expect(intoAlpha.isError).toBe(true);
    expect(intoAlpha.text).not.toContain('alpha:production');
    const betaIds = (await test.server.deployments.list({ agent_id: 'beta' })).map((deployment) => deployment.id);
    expect(betaIds).toEqual(['beta:production#4']);
    const readOnly = await call(keys.reader, 'create_or_update_deployment', { agent_id: 'alpha', version });
    expect(readOnly.isError).toBe(true);
    expect(readOnly.text).toContain('deployments:write');
  });

  it('checks the version as a stored deployment, naming the path', async () => {
    const invalid = await call(keys.bob, 'create_or_update_deployment', {
      agent_id: 'beta',
      version: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' },
    });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toContain('temperature');
    const unknown = await call(keys.bob, 'create_or_update_deployment', { agent_id: 'beta', version: {}, extra: 1 });
    expect(unknown.isError).toBe(true);
  });
});
