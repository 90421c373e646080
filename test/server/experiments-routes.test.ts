import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * `/v1/experiments` from outside, through the openai SDK's generic verbs: two keys limited to one agent each
 * (support, billing) that must not see each other's experiments, calls or cells, and the key rules that reach the
 * cells' calls (models, lineage, scopes, budget).
 */
let test: TestServer;
const keys = { a: '', b: '', mini: '', parent: '', child: '', sibling: '', noChat: '' };
let childId = '';
let miniId = '';

const grant = (scopes: KeyGrant['scopes'], agents: string[] | null, models: string[] | null = null): KeyGrant => ({
  scopes,
  allowed_agents: agents,
  allowed_models: models,
  expires_at: null,
});
const rw: KeyGrant['scopes'] = ['chat', 'calls:read', 'annotations:write'];
const PROMPT = [{ role: 'user', content: 'Answer: {{text}}' }];
const inline = (model = 'gpt-4o-mini', extra: Record<string, unknown> = {}) => ({ model, messages: PROMPT, ...extra });
const inputs = (n: number) => Array.from({ length: n }, (_, i) => ({ variables: { text: `question ${i}` } }));

const client = (key: string) => test.openai(key);
type Any = Record<string, any>;

/** The status and body of a call through the SDK: its error's status and body when refused. */
async function send(
  key: string,
  method: 'get' | 'post',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Any }> {
  try {
    const { data, response } = await client(key)
      [method](path, method === 'post' ? { body } : {})
      .withResponse();
    return { status: response.status, body: data as Any };
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status ?? 0, body: error.error as Any };
    throw error;
  }
}

async function create(key: string, body: Any): Promise<Any> {
  const created = await send(key, 'post', '/experiments', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

beforeAll(async () => {
  test = await startTestServer();
  const make = async (name: string, value: KeyGrant, parentId?: string) =>
    test.server.keys.create(name, { grant: value, ...(parentId ? { parentId } : {}) });
  keys.a = (await make('a', grant(rw, ['support']))).key;
  keys.b = (await make('b', grant(rw, ['billing']))).key;
  const mini = await make('mini', grant(['chat', 'calls:read'], ['support'], ['gpt-4o-mini']));
  keys.mini = mini.key;
  miniId = mini.info.id;
  keys.noChat = (await make('no-chat', grant(['calls:read'], ['support']))).key;
  const parent = await make('parent', grant(['chat', 'calls:read:own', 'keys:create'], null));
  keys.parent = parent.key;
  const child = await make('child', grant(['chat', 'calls:read:own'], null), parent.info.id);
  keys.child = child.key;
  childId = child.info.id;
  keys.sibling = (await make('sibling', grant(['chat', 'calls:read:own'], null), parent.info.id)).key;
  for (const [key, agent] of [
    [keys.a, 'support'],
    [keys.b, 'billing'],
  ] as const)
    for (let i = 0; i < 3; i++)
      await client(key).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Answer: {{text}}' }],
        metadata: { agent_id: agent },
        // @ts-expect-error Switchyard's extension: the prompt's variables.
        input: { text: `${agent} call ${i}` },
      });
}, 60_000);
afterAll(() => test.stop());

describe('/v1/experiments', () => {
  it('hides one key’s experiment from another: 404 on read, add, run; not listed; 403 for its agent', async () => {
    const experiment = await create(keys.a, {
      agent_id: 'support',
      title: 'A',
      versions: [inline()],
      inputs: inputs(1),
    });
    const id = experiment.id as string;
    expect(id).toMatch(/^exp_/);
    expect((await send(keys.a, 'get', `/experiments/${id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['get', `/experiments/${id}`, undefined],
      ['post', `/experiments/${id}/versions`, { versions: [inline()] }],
      ['post', `/experiments/${id}/inputs`, { inputs: inputs(1) }],
      ['post', `/experiments/${id}/run`, {}],
    ] as const) {
      const refused = await send(keys.b, method, path, body);
      expect(refused.status, path).toBe(404);
      expect(refused.body.code).toBe('experiment_not_found');
    }
    const listed = await send(keys.b, 'get', '/experiments');
    expect(listed.body.data.map((header: Any) => header.id)).not.toContain(id);
    expect((await send(keys.a, 'get', '/experiments')).body.data.map((header: Any) => header.id)).toContain(id);
    const forOther = await send(keys.b, 'post', '/experiments', { agent_id: 'support', versions: [inline()] });
    expect(forOther.status).toBe(403);
    expect(forOther.body.type).toBe('permission_error');
  });

  it('runs in the background: 202 while running, then GET with wait_ms answers it completed', async () => {
    const experiment = await create(keys.a, { agent_id: 'support', versions: [inline()], inputs: inputs(3) });
    const run = await send(keys.a, 'post', `/experiments/${experiment.id}/run`, { concurrency: 2 });
    expect(run.status).toBe(202);
    expect(run.body.status).toBe('running');
    const done = await send(keys.a, 'get', `/experiments/${experiment.id}?wait_ms=20000`);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.cells.map((cell: Any) => cell.status)).toEqual(['completed', 'completed', 'completed']);
    expect(done.body.summaries[0]).toMatchObject({ cells: 3, completed: 3, failed: 0 });
    // `run: true` on create and on add starts at once.
    const added = await send(keys.a, 'post', `/experiments/${experiment.id}/versions`, {
      versions: [inline('gpt-4o')],
      run: true,
    });
    expect(added.status).toBe(200);
    const waited = await send(keys.a, 'post', `/experiments/${experiment.id}/run`, { wait_ms: 20000 });
    expect(waited.status).toBe(200);
    expect(waited.body.cells).toHaveLength(6);
    expect(waited.body.cells.every((cell: Any) => cell.status === 'completed')).toBe(true);
  });

  it('calls each cell as the key: a version outside allowed_models is a 403 when added, as a cell is', async () => {
    // Issue 37: this was accepted (201) and each cell failed later; a version is a call the key will make.
    const listed = async () => (await send(keys.mini, 'get', '/experiments')).body.data.length;
    const before = await listed();
    const body = { agent_id: 'support', versions: [inline(), inline('gpt-4o')], inputs: inputs(1), run: true };
    const refused = await send(keys.mini, 'post', '/experiments', body);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: 'permission_error' });
    expect(refused.body.message).toMatch(/gpt-4o\b/);
    expect(await listed()).toBe(before);

    const experiment = await create(keys.mini, { ...body, versions: [inline()] });
    const done = (await send(keys.mini, 'get', `/experiments/${experiment.id}?wait_ms=20000`)).body;
    expect(done.status).toBe('completed');
    expect(done.cells[0].status).toBe('completed');
    const call = (await send(test.key, 'get', `/calls/${done.cells[0].call_id}`)).body;
    expect(call.metadata.api_key_id).toBe(miniId);
  });

  it('a key that reads another’s experiment does not change it: adds and runs are its author’s', async () => {
    const experiment = await create(keys.a, { agent_id: 'support', versions: [inline()], inputs: inputs(1) });
    const id = experiment.id as string;
    expect((await send(keys.mini, 'get', `/experiments/${id}`)).status).toBe(200);
    for (const [path, body] of [
      [`/experiments/${id}/versions`, { versions: [inline()] }],
      [`/experiments/${id}/inputs`, { inputs: inputs(1) }],
      [`/experiments/${id}/run`, {}],
    ] as const) {
      const refused = await send(keys.mini, 'post', path, body);
      expect(refused.status, path).toBe(403);
      expect(refused.body.type).toBe('permission_error');
    }
    const child = await create(keys.child, { agent_id: 'support', versions: [inline()] });
    expect((await send(keys.parent, 'post', `/experiments/${child.id}/inputs`, { inputs: inputs(1) })).status).toBe(
      200,
    );
  });

  it('calls:read:own: a child key’s experiment is read by its parent, not by a sibling', async () => {
    const experiment = await create(keys.child, { agent_id: 'support', versions: [inline()] });
    expect(experiment.author).toBe(childId);
    expect((await send(keys.parent, 'get', `/experiments/${experiment.id}`)).status).toBe(200);
    expect((await send(keys.sibling, 'get', `/experiments/${experiment.id}`)).status).toBe(404);
    const parentList = (await send(keys.parent, 'get', '/experiments')).body.data.map((header: Any) => header.id);
    expect(parentList).toContain(experiment.id);
    const siblingList = (await send(keys.sibling, 'get', '/experiments')).body.data.map((header: Any) => header.id);
    expect(siblingList).not.toContain(experiment.id);
  });

  it('reuses an identical cell only from the same key’s experiments, never from another key’s', async () => {
    const body = { versions: [inline()], inputs: [{ variables: { text: 'shared question' } }], run: true };
    const first = await create(keys.a, { agent_id: 'support', ...body });
    const firstCell = (await send(keys.a, 'get', `/experiments/${first.id}?wait_ms=20000`)).body.cells[0];
    const again = await create(keys.a, { agent_id: 'support', ...body });
    const mine = (await send(keys.a, 'get', `/experiments/${again.id}?wait_ms=20000`)).body;
    expect(mine.cells[0]).toMatchObject({ status: 'completed', reused_from: `${first.id}/${firstCell.id}` });
    const other = await create(keys.b, { agent_id: 'billing', ...body });
    const theirs = (await send(keys.b, 'get', `/experiments/${other.id}?wait_ms=20000`)).body;
    expect(theirs.cells[0]).toMatchObject({ status: 'completed', reused_from: null });
  });

  it('needs the chat scope to create', async () => {
    const refused = await send(keys.noChat, 'post', '/experiments', { agent_id: 'support' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/chat/);
  });

  it('copies inputs only from the calls the key reads: B’s calls never become A’s inputs', async () => {
    const mine = await create(keys.a, { agent_id: 'support', inputs: [{ from_calls: { limit: 50 } }] });
    const texts = mine.inputs.map((input: Any) => input.variables?.text);
    // Support's calls (the seeded ones, and earlier experiments' cells), never billing's.
    expect(texts.filter((text: string) => text?.startsWith('support'))).toHaveLength(3);
    expect(texts.filter((text: string) => text?.startsWith('billing'))).toEqual([]);
    const filter = { agent_id: 'billing' };
    const other = await send(keys.a, 'post', '/experiments', {
      agent_id: 'support',
      inputs: [{ from_calls: { filter, limit: 50 } }],
    });
    const copied = other.status === 201 ? other.body.inputs.map((input: Any) => input.variables?.text) : [];
    expect(copied.filter((text: string) => text?.startsWith('billing'))).toEqual([]);
  });

  it('answers an annotation on a cell of another agent’s experiment as a 404; its own agent’s is stored', async () => {
    const experiment = await create(keys.a, { agent_id: 'support', versions: [inline()], inputs: inputs(1) });
    const target = { experiment_id: experiment.id, cell_id: `${experiment.versions[0].id}.${experiment.inputs[0].id}` };
    const annotation = { target, metric: { name: 'score', value: 1 } };
    const refused = await send(keys.b, 'post', '/annotations', { annotations: [annotation] });
    expect(refused.status).toBe(404);
    const stored = await send(keys.a, 'post', '/annotations', { annotations: [annotation] });
    expect(stored.status).toBe(201);
    const shown = (await send(keys.a, 'get', `/experiments/${experiment.id}`)).body;
    expect(shown.annotations).toHaveLength(1);
  });

  it('skips the cells a small budget_usd cannot pay, with code budget_exceeded', async () => {
    const version = inline('gpt-4o', { max_completion_tokens: 100 });
    const body = { agent_id: 'support', budget_usd: 0.0015, versions: [version], inputs: inputs(5) };
    const experiment = await create(keys.a, body);
    const run = await send(keys.a, 'post', `/experiments/${experiment.id}/run`, { concurrency: 1, wait_ms: 20000 });
    expect(run.status).toBe(200);
    const skipped = run.body.cells.filter((cell: Any) => cell.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0].error.code).toBe('budget_exceeded');
    expect(run.body.spent_usd).toBeLessThanOrEqual(0.0015);
  });

  it('answers a body with an unknown field with a 400 naming it', async () => {
    const created = await send(keys.a, 'post', '/experiments', { agent_id: 'support', colour: 'red' });
    expect(created.status).toBe(400);
    expect(created.body.param).toBe('colour');
    const experiment = await create(keys.a, { agent_id: 'support' });
    for (const [path, body] of [
      [`/experiments/${experiment.id}/run`, { speed: 2 }],
      [`/experiments/${experiment.id}/versions`, { versions: [inline()], speed: 2 }],
      [`/experiments/${experiment.id}/inputs`, { inputs: [{ variables: {}, speed: 2 }] }],
    ] as const) {
      const refused = await send(keys.a, 'post', path, body);
      expect(refused.status, path).toBe(400);
      expect(refused.body.message, path).toMatch(/speed/);
    }
  });
});
