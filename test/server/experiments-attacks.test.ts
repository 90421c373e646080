import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Experiments attacked by one API key that wants another key's data, or to escape its agents, models and scopes:
 * every rule here must hold (see experiments-routes.test.ts for the ordinary behaviour).
 */
let test: TestServer;
const keys = { a: '', b: '', parent: '', child: '', sibling: '', noteOnly: '', noteAgent: '' };
const ids = { a: '', parent: '', child: '' };
type Any = Record<string, any>;

const grant = (scopes: KeyGrant['scopes'], agents: string[] | null, models: string[] | null = null): KeyGrant => ({
  scopes,
  allowed_agents: agents,
  allowed_models: models,
  expires_at: null,
});
const PROMPT = [{ role: 'user', content: 'Answer: {{text}}' }];
const inline = (model = 'gpt-4o-mini') => ({ model, messages: PROMPT });
const vars = (text: string) => ({ variables: { text } });

async function send(key: string, path: string, body?: unknown): Promise<{ status: number; body: Any }> {
  const response = await api(test, `/v1${path}`, { key, ...(body === undefined ? {} : { body }) });
  const value = await jsonOf(response);
  return { status: response.status, body: value.error ?? value };
}
async function create(key: string, body: Any): Promise<Any> {
  const created = await send(key, '/experiments', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
const texts = (experiment: Any): string[] => experiment.inputs.map((input: Any) => String(input.variables?.text));
const cellOf = (experiment: Any) => ({
  experiment_id: experiment.id,
  cell_id: `${experiment.versions[0].id}.${experiment.inputs[0].id}`,
});

beforeAll(async () => {
  test = await startTestServer();
  const make = (name: string, value: KeyGrant, parentId?: string) =>
    test.server.keys.create(name, { grant: value, ...(parentId ? { parentId } : {}) });
  const a = await make('a', grant(['chat', 'calls:read', 'annotations:write'], ['support']));
  keys.a = a.key;
  ids.a = a.info.id;
  keys.b = (await make('b', grant(['chat', 'calls:read', 'annotations:write'], ['billing']))).key;
  const parent = await make('parent', grant(['chat', 'calls:read:own', 'keys:create'], null));
  keys.parent = parent.key;
  ids.parent = parent.info.id;
  const child = await make('child', grant(['chat', 'calls:read:own'], null), parent.info.id);
  keys.child = child.key;
  ids.child = child.info.id;
  keys.sibling = (await make('sibling', grant(['chat', 'calls:read:own'], null), parent.info.id)).key;
  keys.noteOnly = (await make('note-only', grant(['annotations:write'], null))).key;
  keys.noteAgent = (await make('note-agent', grant(['annotations:write'], ['billing']))).key;
  // Secret calls: billing's (key b), and the parent's own (which its child must not copy).
  for (const [key, agent, text] of [
    [keys.b, 'billing', 'billing secret'],
    [keys.parent, 'support', 'parent secret'],
    [keys.sibling, 'support', 'sibling secret'],
  ] as const) {
    const body = { model: 'gpt-4o-mini', messages: PROMPT, metadata: { agent_id: agent }, input: { text } };
    expect((await api(test, '/v1/chat/completions', { key, body })).status).toBe(200);
  }
  for (const deployment of [
    makeDeployment({ agent_id: 'billing', environment: 'production', number: 1 }),
    makeDeployment({ agent_id: 'support', environment: 'production', number: 1 }),
  ]) {
    const path = `/v1/deployments/${encodeURIComponent(deployment.id)}`;
    expect((await api(test, path, { method: 'PUT', body: deployment })).status).toBe(201);
  }
}, 60_000);
afterAll(() => test.stop());

describe('experiments under attack', () => {
  it('from_calls never copies a call outside the key’s reads, whatever the filter names', async () => {
    const filters: Any[] = [
      { agent_id: 'billing' },
      { api_key_id: ids.parent },
      { metadata: { api_key_id: ids.parent } },
      { metadata: { agent_id: 'billing' } },
    ];
    for (const filter of filters) {
      // Key a reads every support call (calls:read), never billing's; the child reads only its own.
      for (const [key, hidden] of [
        [keys.a, 'billing secret'],
        [keys.child, 'secret'],
      ] as const) {
        const made = await send(key, '/experiments', {
          agent_id: 'support',
          inputs: [{ from_calls: { filter, limit: 100 } }],
        });
        const copied = made.status === 201 ? texts(made.body) : [];
        expect(
          copied.filter((text) => text.includes(hidden)),
          JSON.stringify(filter),
        ).toEqual([]);
      }
    }
    // The parent reads its own calls and its children's, never a sibling's of another parent.
    const own = await create(keys.parent, { agent_id: 'support', inputs: [{ from_calls: { limit: 100 } }] });
    expect(texts(own)).toContain('parent secret');
    expect(texts(own)).toContain('sibling secret');
    expect(texts(own)).not.toContain('billing secret');
  });

  it('a version never reads another agent’s deployment, by id or by environment', async () => {
    const byId = await send(keys.a, '/experiments', {
      agent_id: 'support',
      versions: [{ deployment_id: 'billing:production#1' }],
    });
    expect(byId.status).toBe(400);
    expect(JSON.stringify(byId.body)).not.toContain('gpt-4o-latest');
    const byEnv = await create(keys.a, { agent_id: 'support', versions: [{ environment: 'production' }] });
    expect(byEnv.versions[0].deployment_id).toBe('support:production#1');
    const other = { agent_id: 'billing', versions: [{ environment: 'production' }] };
    const forOther = await send(keys.a, '/experiments', other);
    expect(forOther.status).toBe(403);
  });

  it('a child, sibling or other agent never reads, adds to, runs or lists a parent’s experiment', async () => {
    const mine = await create(keys.parent, { agent_id: 'support', versions: [inline()], inputs: [vars('p')] });
    for (const key of [keys.child, keys.sibling, keys.b, keys.noteOnly]) {
      for (const [path, body] of [
        [`/experiments/${mine.id}`, undefined],
        [`/experiments/${mine.id}/run`, {}],
        [`/experiments/${mine.id}/inputs`, { inputs: [vars('x')] }],
        [`/experiments/${mine.id}/versions`, { versions: [inline()] }],
      ] as const) {
        const refused = await send(key, path, body);
        expect([403, 404], `${path}`).toContain(refused.status);
        expect(JSON.stringify(refused.body)).not.toContain('Answer:');
      }
      const listed = await send(key, '/experiments?agent_id=support&limit=100');
      const seen = listed.status === 200 ? listed.body.data.map((header: Any) => header.id) : [];
      expect(seen).not.toContain(mine.id);
    }
  });

  it('annotates a cell only when reading its experiment or acting as its agent; lists stay scoped', async () => {
    const secret = await create(keys.a, { agent_id: 'support', versions: [inline()], inputs: [vars('cell')] });
    const note = { target: cellOf(secret), metric: { name: 'score', value: 0 } };
    for (const key of [keys.noteOnly, keys.noteAgent, keys.b, keys.child]) {
      const refused = await send(key, '/annotations', { annotations: [note] });
      expect(refused.status).toBe(key === keys.child ? 403 : 404);
    }
    // A cell that does not exist and one the key may not touch answer alike.
    const missing = { ...note, target: { ...note.target, cell_id: 'ver_x.inp_y' } };
    const absent = await send(keys.b, '/annotations', { annotations: [missing] });
    expect(absent.body.message.replace('ver_x.inp_y', note.target.cell_id)).toBe(
      (await send(keys.b, '/annotations', { annotations: [note] })).body.message,
    );
    expect((await send(keys.a, '/annotations', { annotations: [note] })).status).toBe(201);
    for (const key of [keys.b, keys.child, keys.sibling]) {
      const listed = await send(key, `/annotations?experiment_id=${secret.id}`);
      expect(listed.status === 200 ? listed.body.data : []).toEqual([]);
    }
    expect((await send(keys.a, `/annotations?experiment_id=${secret.id}`)).body.data).toHaveLength(1);
  });

  it('reuse never hands one key another key’s answer, even under another author with the same content', async () => {
    const body = { versions: [inline()], inputs: [vars('reuse me')], run: true };
    const first = await create(keys.child, { agent_id: 'support', ...body });
    await send(keys.child, `/experiments/${first.id}?wait_ms=20000`);
    for (const key of [keys.sibling, keys.parent, keys.a]) {
      const again = await create(key, { agent_id: 'support', ...body });
      const done = (await send(key, `/experiments/${again.id}?wait_ms=20000`)).body;
      expect(done.cells[0].reused_from).toBeNull();
    }
  });

  it('survives hostile bodies: deep JSON, huge wait_ms, a bad run option', async () => {
    const deep = `{"agent_id":"support","inputs":[{"variables":{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}}]}`;
    const response = await api(test, '/v1/experiments', { key: keys.a, body: deep });
    expect(response.status).toBeLessThan(600);
    const experiment = await create(keys.a, { agent_id: 'support' });
    const wait = await send(keys.a, `/experiments/${experiment.id}?wait_ms=99999999`);
    expect(wait.status).toBe(400);
    const run = await send(keys.a, `/experiments/${experiment.id}/run`, { wait_ms: 1e12 });
    expect(run.status).toBe(400);
    expect((await send(keys.a, `/experiments/${experiment.id}`)).status).toBe(200);
  });
});
