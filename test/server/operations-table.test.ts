import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/access/scopes.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { OPERATIONS } from '../../src/server/operations/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { api, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Issue 37: every operation is declared once and both its HTTP route and its MCP tool are derived from it. Each
 * operation runs here for five kinds of key, over HTTP (fetch) and over MCP (the official client): both must give
 * the answer the table expects, and the same answer (the same data, or the same error message).
 */
type Kind = 'admin' | 'agent' | 'model' | 'own' | 'other';
type Outcome = 'ok' | 403 | 404;
type Args = Record<string, unknown>;
interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}
interface Case {
  /** The MCP tool (the operation's name); `label` tells two cases of one operation apart. */
  tool: string;
  label?: string;
  /** Fresh arguments for one surface (a write's target is made anew for each). */
  args(kind: Kind): Args | Promise<Args>;
  /** The same operation over HTTP, for an operation that has a route. */
  http?: (args: Args) => HttpCall;
  /** HTTP's success status (default 200), and its body as MCP's tool answers it. */
  created?: boolean;
  unwrap?: (body: Record<string, unknown>) => unknown;
  expect: Record<Kind, Outcome>;
  /** More about a success, per kind. */
  check?: (kind: Kind, result: unknown) => void;
}

let test: TestServer;
const keys = {} as Record<Kind, { key: string; id: string }>;
const clients = {} as Record<Kind, Client>;
let supportCall = '';
let supportExperiment = '';

const everyScope = SCOPES.filter((scope) => scope !== 'metrics:read');
const grant = (scopes: readonly Scope[], agents: string[] | null, models: string[] | null = null): KeyGrant => ({
  scopes: [...scopes],
  allowed_agents: agents,
  allowed_models: models,
  expires_at: null,
});
const PROMPT = [{ role: 'user', content: 'Say {{word}}' }];
const all = (outcome: Outcome): Record<Kind, Outcome> => ({
  admin: outcome,
  agent: outcome,
  model: outcome,
  own: outcome,
  other: outcome,
});

/** A new experiment of `support` made by the agent-limited key, with versions or not. */
async function freshExperiment(versions: unknown[] = []): Promise<string> {
  const created = await api(test, '/v1/experiments', { key: keys.agent.key, body: { agent_id: 'support', versions } });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

const query = (args: Args) => new URLSearchParams(args as Record<string, string>).toString();

const CASES: Case[] = [
  { tool: 'list_models', args: () => ({}), expect: all('ok') },
  {
    tool: 'list_deployments',
    args: () => ({ agent_id: 'support' }),
    expect: all('ok'),
    check: (kind, result) => expect((result as unknown[]).length === 0).toBe(kind === 'other'),
  },
  {
    tool: 'create_api_key',
    args: () => ({ name: 'child', scopes: ['chat'] }),
    http: (args) => ({ method: 'POST', path: '/v1/keys', body: args }),
    created: true,
    expect: { ...all('ok'), own: 403 },
  },
  {
    tool: 'list_mcp_calls',
    args: () => ({ limit: 10 }),
    http: (args) => ({ method: 'GET', path: `/v1/mcp/calls?${query(args)}` }),
    unwrap: (body) => body.data,
    expect: { ...all(403), admin: 'ok' },
    check: (_kind, result) => expect(result).toEqual([]),
  },
  {
    tool: 'list_api_keys',
    args: () => ({}),
    http: () => ({ method: 'GET', path: '/v1/keys' }),
    unwrap: (body) => body.data,
    expect: { ...all('ok'), own: 403 },
  },
  {
    tool: 'update_api_key',
    // A child of the agent-limited key each time: its own to change, the admin's too; nobody else's.
    async args() {
      const child = await test.server.keys.create('to limit', {
        grant: grant(['chat'], null),
        parentId: keys.agent.id,
      });
      return { key: child.info.id, limits: { requests_per_minute: 5, budgets: ['2/day'] } };
    },
    http: ({ key, ...body }) => ({ method: 'PATCH', path: `/v1/keys/${key}`, body }),
    expect: { admin: 'ok', agent: 'ok', model: 404, own: 403, other: 404 },
    check: (_kind, result) =>
      expect((result as { limits: unknown }).limits).toEqual({ requests_per_minute: 5, budgets: ['2/day'] }),
  },
  {
    tool: 'revoke_api_key',
    // A child of the agent-limited key each time: its own to revoke, the admin's too; nobody else's.
    async args() {
      const child = await test.server.keys.create('to revoke', {
        grant: grant(['chat'], null),
        parentId: keys.agent.id,
      });
      return { key: child.info.id };
    },
    http: (args) => ({ method: 'DELETE', path: `/v1/keys/${args.key}` }),
    expect: { admin: 'ok', agent: 'ok', model: 404, own: 403, other: 404 },
  },
  {
    tool: 'query_completions',
    args: () => ({ limit: 50 }),
    http: (args) => ({ method: 'POST', path: '/v1/calls/query', body: args }),
    expect: all('ok'),
    check(kind, result) {
      const ids = (result as { data: Array<{ id: string }> }).data.map((row) => row.id);
      expect(ids.includes(supportCall), kind).toBe(kind !== 'own' && kind !== 'other');
    },
  },
  {
    tool: 'get_completion',
    args: () => ({ id: supportCall }),
    http: (args) => ({ method: 'GET', path: `/v1/calls/${args.id}` }),
    expect: { admin: 'ok', agent: 'ok', model: 'ok', own: 404, other: 404 },
  },
  {
    tool: 'add_annotations',
    args: () => ({ annotations: [{ target: { call_id: supportCall }, text: 'checked' }] }),
    http: (args) => ({ method: 'POST', path: '/v1/annotations', body: args }),
    created: true,
    expect: { admin: 'ok', agent: 'ok', model: 'ok', own: 404, other: 404 },
  },
  {
    tool: 'get_annotations',
    args: () => ({ call_id: supportCall }),
    http: (args) => ({ method: 'GET', path: `/v1/annotations?${query(args)}` }),
    expect: all('ok'),
    check(kind, result) {
      const found = (result as { data: unknown[] }).data.length > 0;
      expect(found, kind).toBe(kind !== 'own' && kind !== 'other');
    },
  },
  {
    tool: 'list_agents',
    args: () => ({}),
    expect: all('ok'),
    check(kind, result) {
      const agents = (result as { data: Array<{ agent_id: string }> }).data.map((agent) => agent.agent_id);
      expect(agents.includes('support'), kind).toBe(kind !== 'other');
    },
  },
  {
    tool: 'create_or_update_deployment',
    args: () => ({
      agent_id: 'support',
      environment: 'staging',
      version: { model: 'gpt-4o-mini-2024-07-18', messages: PROMPT },
    }),
    expect: { ...all('ok'), other: 403 },
  },
  {
    tool: 'create_or_update_deployment',
    label: 'outside the model-limited key’s models',
    args: () => ({ agent_id: 'support', environment: 'dev', version: { model: 'gpt-4o', messages: PROMPT } }),
    expect: { ...all('ok'), model: 403, other: 403 },
  },
  {
    tool: 'create_experiment',
    args: () => ({ agent_id: 'support', versions: [{ model: 'gpt-4o-mini', messages: PROMPT }] }),
    http: (args) => ({ method: 'POST', path: '/v1/experiments', body: args }),
    created: true,
    expect: { ...all('ok'), other: 403 },
  },
  {
    tool: 'create_experiment',
    label: 'outside the model-limited key’s models',
    args: () => ({ agent_id: 'support', versions: [{ model: 'gpt-4o', messages: PROMPT }] }),
    http: (args) => ({ method: 'POST', path: '/v1/experiments', body: args }),
    created: true,
    expect: { ...all('ok'), model: 403, other: 403 },
  },
  {
    tool: 'add_versions_to_experiment',
    args: async () => ({
      experiment_id: await freshExperiment(),
      versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
    }),
    http: ({ experiment_id, ...body }) => ({ method: 'POST', path: `/v1/experiments/${experiment_id}/versions`, body }),
    // The model key reads the agent key's experiment (calls:read of support) but does not change it.
    expect: { admin: 'ok', agent: 'ok', model: 403, own: 404, other: 404 },
  },
  {
    tool: 'add_inputs_to_experiment',
    // No version: nothing starts running, whichever surface adds them.
    args: async () => ({ experiment_id: await freshExperiment(), inputs: [{ variables: { word: 'hi' } }] }),
    http: ({ experiment_id, ...body }) => ({ method: 'POST', path: `/v1/experiments/${experiment_id}/inputs`, body }),
    expect: { admin: 'ok', agent: 'ok', model: 403, own: 404, other: 404 },
  },
  {
    tool: 'get_experiment',
    args: () => ({ experiment_id: supportExperiment }),
    http: (args) => ({ method: 'GET', path: `/v1/experiments/${args.experiment_id}` }),
    expect: { admin: 'ok', agent: 'ok', model: 'ok', own: 404, other: 404 },
  },
  {
    tool: 'list_experiments',
    args: () => ({ agent_id: 'support' }),
    http: (args) => ({ method: 'GET', path: `/v1/experiments?${query(args)}` }),
    expect: all('ok'),
    check(kind, result) {
      const ids = (result as { data: Array<{ id: string }> }).data.map((header) => header.id);
      expect(ids.includes(supportExperiment), kind).toBe(kind !== 'own' && kind !== 'other');
    },
  },
];

type Answer = { ok: unknown } | { error: string };

async function overMcp(kind: Kind, tool: string, args: Args): Promise<Answer> {
  const result = await clients[kind].callTool({ name: tool, arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return result.isError ? { error: text } : { ok: JSON.parse(text) };
}

async function overHttp(kind: Kind, call: HttpCall, wanted: Case): Promise<Answer & { status: number }> {
  const response = await api(test, call.path, {
    key: keys[kind].key,
    method: call.method,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  const body = (await response.json()) as Record<string, unknown> & { error?: { message: string } };
  if (response.status >= 400) return { status: response.status, error: body.error!.message };
  return { status: response.status, ok: wanted.unwrap ? wanted.unwrap(body) : body };
}

/** Ids, keys and times made anew by each write, as placeholders: what is left is what the two must share. */
function comparable(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replace(/\b(exp|ver|inp|ann|key)_[0-9A-Za-z-]+/g, '$1_*')
    .replace(/sy-[0-9A-Za-z_-]+/g, 'sy-*')
    .replace(/\d{4}-\d\d-\d\dT[0-9:.]+Z/g, '<time>');
  return JSON.parse(text);
}

beforeAll(async () => {
  test = await startTestServer();
  const make = async (kind: Kind, value: KeyGrant) => {
    const { key, info } = await test.server.keys.create(kind, { grant: value });
    keys[kind] = { key, id: info.id };
  };
  keys.admin = { key: test.key, id: (await test.server.keys.list())[0]!.id };
  await make('agent', grant(everyScope, ['support']));
  await make('model', grant(everyScope, null, ['gpt-4o-mini']));
  await make(
    'own',
    grant(['chat', 'calls:read:own', 'annotations:write', 'deployments:read', 'deployments:write'], null),
  );
  await make('other', grant(everyScope, ['billing']));
  const called = await test.openai(keys.agent.key).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  supportCall = (called as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
  await test
    .openai(keys.own.key)
    .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'mine' }], metadata: {} });
  await test.server.deployments.put!(makeDeployment({ agent_id: 'support', number: 1 }));
  supportExperiment = await freshExperiment([{ model: 'gpt-4o-mini', messages: PROMPT }]);
  for (const kind of Object.keys(keys) as Kind[]) {
    clients[kind] = new Client({ name: 'operations-table', version: '1.0.0' });
    const headers = { authorization: `Bearer ${keys[kind].key}` };
    await clients[kind].connect(
      new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }),
    );
  }
}, 30_000);
afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await test.stop();
});

describe('every operation × every kind of key, over HTTP and MCP', () => {
  it('has a row for every MCP tool, and an HTTP form exactly for the operations declared with a route', async () => {
    const { tools } = await clients.admin.listTools();
    expect([...new Set(CASES.map((row) => row.tool))].sort()).toEqual(tools.map((tool) => tool.name).sort());
    for (const operation of OPERATIONS) {
      const rows = CASES.filter((row) => row.tool === operation.name);
      for (const row of rows) expect(row.http !== undefined, operation.name).toBe(operation.http !== undefined);
    }
  });

  for (const row of CASES) {
    for (const kind of ['admin', 'agent', 'model', 'own', 'other'] as const) {
      const title = `${row.tool}${row.label ? ` (${row.label})` : ''} as the ${kind} key: ${row.expect[kind]}`;
      it(title, async () => {
        const wanted = row.expect[kind];
        const mcp = await overMcp(kind, row.tool, await row.args(kind));
        if (wanted === 'ok') {
          expect(mcp, JSON.stringify(mcp).slice(0, 300)).toHaveProperty('ok');
          row.check?.(kind, (mcp as { ok: unknown }).ok);
        } else {
          expect(mcp).toHaveProperty('error');
        }
        if (!row.http) return;
        const http = await overHttp(kind, row.http(await row.args(kind)), row);
        if (wanted === 'ok') {
          expect(http.status, JSON.stringify(http).slice(0, 300)).toBe(row.created ? 201 : 200);
          row.check?.(kind, (http as { ok: unknown }).ok);
          expect(comparable((http as { ok: unknown }).ok)).toEqual(comparable((mcp as { ok: unknown }).ok));
        } else {
          expect(http.status).toBe(wanted);
          expect(comparable((mcp as { error: string }).error)).toBe(comparable((http as { error: string }).error));
        }
      });
    }
  }
});
