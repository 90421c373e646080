import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { ApiKeyStore, createSwitchyardHandler, defaultHostPolicy } from '../../src/server/index.ts';

/** The Web handler in process: no socket. */
function setup(publicPage: boolean) {
  const gateway = createGateway({ mock: true });
  const keys = new ApiKeyStore(':memory:');
  const handler = createSwitchyardHandler({
    gateway,
    keys,
    mock: true,
    publicPage,
    hostPolicy: defaultHostPolicy('127.0.0.1', 8787),
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    handler(new Request(`http://127.0.0.1:8787${path}`, { headers: { host: '127.0.0.1:8787', ...headers } }));
  return { gateway, keys, handler, get };
}

describe('the workflow page', () => {
  it('renders agents, the newest workflow as a waterfall and daily cost, escaping every value', async () => {
    const { gateway, get } = setup(true);
    const hostile = '<script>alert(1)</script>';
    for (const agent of ['planner', hostile]) {
      await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { agent_id: agent, trace_id: '"><img src=x onerror=alert(2)>', workflow_name: 'nightly' },
      });
    }
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain('planner');
    expect(page).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page).not.toContain('<script');
    expect(page).not.toContain('<img');
    expect(page.match(/<rect class="bar/g)).toHaveLength(2);
    expect(page).toContain('class="cost-bar"');
    expect(page).toContain('nightly');
  });

  it('shows the trace asked for, and says when it has no calls', async () => {
    const { gateway, get } = setup(true);
    for (const trace of ['first', 'second']) {
      await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { agent_id: `agent-${trace}`, trace_id: trace },
      });
    }
    expect(await (await get('/?trace_id=first')).text()).toMatch(/trace <code>first<\/code>/);
    expect(await (await get('/')).text()).toMatch(/trace <code>second<\/code>/);
    expect(await (await get('/?trace_id=nope')).text()).toContain('No call has the trace_id “nope”');
  });

  it('shows the calls of one trace made through all three dialects, attributed by headers', async () => {
    const { handler, keys, get, gateway } = setup(true);
    const { key } = await keys.create('dialects');
    const headers = {
      host: '127.0.0.1:8787',
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-switchyard-trace-id': 'mixed',
      'x-switchyard-agent-id': 'coder',
      'x-switchyard-workflow-name': 'polyglot',
    };
    const post = (path: string, body: unknown) =>
      handler(new Request(`http://127.0.0.1:8787${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
    const hi = [{ role: 'user', content: 'hi' }];
    expect((await post('/v1/chat/completions', { model: 'gpt-4o-latest', messages: hi })).status).toBe(200);
    expect((await post('/v1/responses', { model: 'gpt-4o-latest', input: 'hi' })).status).toBe(200);
    expect((await post('/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 50, messages: hi })).status).toBe(200);
    const page = await (await get('/?trace_id=mixed')).text();
    expect(page.match(/<rect class="bar/g)).toHaveLength(3);
    expect(page).toContain('coder · claude-haiku-4-5-20251001 · messages');
    expect(page).toContain('coder · gpt-4o-2024-11-20 · responses');
    const workflow = await gateway.calls.workflow('mixed');
    expect(workflow?.calls.map((call) => call.dialect).sort()).toEqual(['chat', 'messages', 'responses']);
    expect(workflow?.calls.map((call) => [call.agent_id, call.workflow_name])).toEqual(
      Array(3).fill(['coder', 'polyglot']),
    );
    expect(page).toContain('<strong>polyglot</strong>');
  });

  it('needs a key when the server is not on loopback, and refuses foreign hosts', async () => {
    const { keys, get } = setup(false);
    expect((await get('/')).status).toBe(401);
    const { key } = await keys.create();
    expect((await get('/', { authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await get('/', { authorization: `Bearer ${key}`, host: 'rebound.example:8787' })).status).toBe(403);
    expect((await get('/', { authorization: `Bearer ${key}`, origin: 'http://rebound.example' })).status).toBe(403);
  });
});
