import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Limits set on a key (`limits` of `POST /v1/keys`, changed by `PATCH /v1/keys/{id}`), through a real server on
 * SQLite: two keys that must not affect each other, a child within its parent, every dialect refused alike.
 */
let test: TestServer;
beforeAll(async () => {
  // 10,000 tokens in and out: $0.0075 a call on gpt-4o-mini.
  const costly = new MockProvider({
    respond: () => ({ content: 'Working.', usage: { prompt_tokens: 10_000, completion_tokens: 10_000 } }),
  });
  test = await startTestServer({ mock: costly });
});
afterAll(async () => {
  await test.stop();
});

const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

/** A key minted over HTTP by `by` (default the admin test key) with `body`. */
async function mint(body: Record<string, unknown>, by = test.key): Promise<{ key: string; id: string }> {
  const response = await api(test, '/v1/keys', { method: 'POST', key: by, body });
  const json = await jsonOf(response);
  if (response.status !== 201) throw new Error(`mint: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const chat = (key: string) => api(test, '/v1/chat/completions', { method: 'POST', key, body: hello });

describe('a key made with its own limits', () => {
  it('30 a minute: 29 to 31 of 45 quick calls pass, and another key is unaffected', async () => {
    const limited = await mint({ name: 'limited', limits: { requests_per_minute: 30 } });
    const other = await mint({ name: 'other' });
    let passed = 0;
    for (let index = 0; index < 45; index++) {
      const response = await api(test, '/v1/deployments', { key: limited.key });
      if (response.status === 200) passed += 1;
      else expect(response.status).toBe(429);
      expect((await api(test, '/v1/deployments', { key: other.key })).status).toBe(200);
    }
    console.log(`a key of 30 requests a minute: ${passed} of 45 passed`);
    expect(passed).toBeGreaterThanOrEqual(29);
    expect(passed).toBeLessThanOrEqual(31);
  });

  it('a parent at 10 a minute cannot mint a child at 100; the refusal names the limit', async () => {
    const parent = await mint({ name: 'team', scopes: ['chat', 'keys:create'], limits: { requests_per_minute: 10 } });
    const refused = await api(test, '/v1/keys', {
      method: 'POST',
      key: parent.key,
      body: { limits: { requests_per_minute: 100 } },
    });
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error.message).toContain(
      "requests_per_minute (100) cannot be above its parent's (10)",
    );
    const budget = await api(test, '/v1/keys', {
      method: 'POST',
      key: (await mint({ scopes: ['chat', 'keys:create'], limits: { budgets: ['5/day'] } })).key,
      body: { limits: { budgets: ['6/day'] } },
    });
    expect(budget.status).toBe(403);
    expect((await jsonOf(budget)).error.message).toContain('($5 per day)');
    // Within it, minted.
    expect((await mint({ limits: { requests_per_minute: 5 } }, parent.key)).id).toMatch(/^key_/);
  });

  it("a child's calls count against its parent: the parent's rate runs out for both", async () => {
    const parent = await mint({ scopes: ['deployments:read', 'keys:create'], limits: { requests_per_minute: 4 } });
    const child = await mint({ scopes: ['deployments:read'] }, parent.key);
    // Minting took one of the parent's four.
    const statuses = [];
    for (let index = 0; index < 3; index++)
      statuses.push((await api(test, '/v1/deployments', { key: child.key })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const childRefused = await api(test, '/v1/deployments', { key: child.key });
    expect(childRefused.status).toBe(429);
    expect((await jsonOf(childRefused)).error.message).toContain(`The key ${parent.id} that minted this one`);
    expect((await api(test, '/v1/deployments', { key: parent.key })).status).toBe(429);
  });

  it("a request its parent's rate refuses takes nothing from the child's own rate", async () => {
    const parent = await mint({ scopes: ['deployments:read', 'keys:create'], limits: { requests_per_minute: 2 } });
    const child = await mint({ scopes: ['deployments:read'], limits: { requests_per_minute: 2 } }, parent.key);
    // Minting took one of the parent's two; the child's first request takes the other.
    expect((await api(test, '/v1/deployments', { key: child.key })).status).toBe(200);
    for (let index = 0; index < 3; index++)
      expect((await api(test, '/v1/deployments', { key: child.key })).status).toBe(429);
    const listed = (await jsonOf(await api(test, '/v1/keys'))).data.find((key: { id: string }) => key.id === child.id);
    // One of its two taken, by the request that passed: the refused ones took none.
    expect(listed.usage.requests_per_minute.remaining).toBe(1);
  });

  it('a budget stops the key; PATCH raises it and calls pass again; GET /v1/keys shows limits and use', async () => {
    const budgeted = await mint({ name: 'budgeted', limits: { budgets: ['0.01/day'] } });
    const other = await mint({ name: 'unbudgeted' });
    expect((await chat(budgeted.key)).status).toBe(200);
    expect((await chat(budgeted.key)).status).toBe(200);
    const refused = await chat(budgeted.key);
    expect(refused.status).toBe(402);
    expect((await jsonOf(refused)).error.code).toBe('insufficient_quota');
    expect((await chat(other.key)).status).toBe(200);

    const listed = (await jsonOf(await api(test, '/v1/keys'))).data.find(
      (key: { id: string }) => key.id === budgeted.id,
    );
    expect(listed.limits).toEqual({ budgets: ['0.01/day'] });
    expect(listed.usage.budgets).toEqual([{ budget: '0.01/day', window: 'day', spent_usd: 0.015 }]);
    expect(listed.usage.in_flight).toEqual({ limit: 64, current: 0 });

    const patched = await api(test, `/v1/keys/${budgeted.id}`, {
      method: 'PATCH',
      body: { limits: { budgets: ['1/day'], requests_per_minute: 100 } },
    });
    expect(patched.status).toBe(200);
    const after = await jsonOf(patched);
    expect(after.limits).toEqual({ requests_per_minute: 100, budgets: ['1/day'] });
    // The spend of the day is kept: the raised budget counts on from $0.015.
    expect(after.usage.budgets).toEqual([{ budget: '1/day', window: 'day', spent_usd: 0.015 }]);
    expect((await chat(budgeted.key)).status).toBe(200);
  });

  it("a key moved from the server's budget to its own, and back, keeps the day's spend", async () => {
    const costly = new MockProvider({
      respond: () => ({ content: 'Working.', usage: { prompt_tokens: 10_000, completion_tokens: 10_000 } }),
    });
    // The server's: $0.02 a key a day, so two calls of $0.0075 pass and a third does not.
    const server = await startTestServer({
      mock: costly,
      gateway: { budgets: { rules: [{ scope: 'key', usd: 0.02, window: 'day' }] } },
    });
    try {
      const { key, id } = await jsonOf(await api(server, '/v1/keys', { method: 'POST', body: { name: 'moved' } }));
      const call = () => api(server, '/v1/chat/completions', { method: 'POST', key, body: hello });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      const limits = async (value: unknown) =>
        jsonOf(await api(server, `/v1/keys/${id}`, { method: 'PATCH', body: { limits: value } }));
      // Its own $0.016 a day: the $0.015 spent counts, so one more call would pass it.
      const own = await limits({ budgets: ['0.016/day'] });
      expect(own.usage.budgets).toEqual([{ budget: '0.016/day', window: 'day', spent_usd: 0.015 }]);
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(402);
      // Back to the server's $0.02: the day's $0.0225 is still spent.
      await limits(null);
      expect((await call()).status).toBe(402);
    } finally {
      await server.stop();
    }
  });

  it('a key may change only the keys it manages, within their parent', async () => {
    const parent = await mint({ scopes: ['chat', 'keys:create'], limits: { requests_per_minute: 10 } });
    const child = await mint({ limits: { requests_per_minute: 5 } }, parent.key);
    const stranger = await mint({ scopes: ['chat', 'keys:create'] });
    const patch = (id: string, key: string, limits: unknown) =>
      api(test, `/v1/keys/${id}`, { method: 'PATCH', key, body: { limits } });
    expect((await patch(child.id, stranger.key, { requests_per_minute: 1 })).status).toBe(404);
    expect((await patch(parent.id, parent.key, { requests_per_minute: 1000 })).status).toBe(404);
    expect((await patch(child.id, parent.key, { requests_per_minute: 11 })).status).toBe(403);
    const ok = await patch(child.id, parent.key, { requests_per_minute: 10 });
    expect(ok.status).toBe(200);
    expect((await jsonOf(ok)).limits).toEqual({ requests_per_minute: 10 });
    const bad = await patch(child.id, parent.key, { budgets: ['5/week'] });
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error.param).toBe('limits.budgets');
  });

  it('max_in_flight: one more request than the limit is refused while they run', async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = new MockProvider({ respond: async () => (await gate, { content: 'done' }) });
    const server = await startTestServer({ mock: slow });
    try {
      const created = await api(server, '/v1/keys', { method: 'POST', body: { limits: { max_in_flight: 2 } } });
      const { key } = (await jsonOf(created)) as { key: string };
      const running = [0, 1].map(() => api(server, '/v1/chat/completions', { method: 'POST', key, body: hello }));
      const listed = async () =>
        (await jsonOf(await api(server, '/v1/keys'))).data.find((each: { limits: unknown }) => each.limits);
      await expect.poll(async () => (await listed()).usage.in_flight.current, { timeout: 5_000 }).toBe(2);
      const third = await api(server, '/v1/chat/completions', { method: 'POST', key, body: hello });
      expect(third.status).toBe(429);
      expect((await jsonOf(third)).error.code).toBe('concurrency_limit_exceeded');
      open();
      expect((await Promise.all(running)).map((response) => response.status)).toEqual([200, 200]);
      await expect.poll(async () => (await listed()).usage.in_flight.current, { timeout: 5_000 }).toBe(0);
    } finally {
      open();
      await server.stop();
    }
  });

  it("tokens_per_minute: a call once the minute's tokens are used is refused with 429 and retry-after", async () => {
    // Each call uses 20,000 tokens: the second starts with 20,000 of 30,000 used (a call may overshoot, as budgets).
    const { key, id } = await mint({ limits: { tokens_per_minute: 30_000 } });
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
    const listed = (await jsonOf(await api(test, '/v1/keys'))).data.find((each: { id: string }) => each.id === id);
    expect(listed.usage.tokens_per_minute).toEqual({ limit: 30_000, used: 40_000 });
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('every dialect refuses a key over its rate or its budget alike', () => {
  const dialects = [
    { path: '/v1/chat/completions', body: hello, shape: 'openai' },
    { path: '/v1/responses', body: { model: 'gpt-4o-mini', input: 'hi' }, shape: 'openai' },
    {
      path: '/v1/messages',
      body: { model: 'claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      shape: 'anthropic',
    },
    { path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'hi' }, shape: 'openai' },
  ] as const;
  for (const dialect of dialects)
    it(`${dialect.path}: 429 with retry-after in its own error shape`, async () => {
      const { key } = await mint({ limits: { requests_per_minute: 1 } });
      const first = await api(test, dialect.path, { method: 'POST', key, body: dialect.body });
      expect(first.status).toBe(200);
      const refused = await api(test, dialect.path, { method: 'POST', key, body: dialect.body });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = await jsonOf(refused);
      if (dialect.shape === 'anthropic')
        expect(body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
      else expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    });
  for (const dialect of dialects)
    it(`${dialect.path}: a key past its budget is refused 402 in its own error shape`, async () => {
      // A budget any first call spends: the next is refused before any provider is called.
      const { key } = await mint({ limits: { budgets: ['0.00000001/day'] } });
      expect((await api(test, dialect.path, { method: 'POST', key, body: dialect.body })).status).toBe(200);
      const refused = await api(test, dialect.path, { method: 'POST', key, body: dialect.body });
      expect(refused.status).toBe(402);
      const body = await jsonOf(refused);
      expect(JSON.stringify(body)).toContain('has spent its budget of $1e-8 per day');
      if (dialect.shape === 'anthropic')
        expect(body).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
      else expect(body.error).toMatchObject({ code: 'insufficient_quota' });
    });
});

describe('a page asked with a key', () => {
  it('counts against the key’s rate as an API request does: 429 once it is spent', async () => {
    const { key } = await mint({ limits: { requests_per_minute: 1 } });
    // Through a proxy (as a page is served to anyone but this machine): the page asks for a key.
    const headers = { authorization: `Bearer ${key}`, 'x-forwarded-for': '10.0.0.1' };
    const page = () => fetch(`${test.url}/experiments/exp_missing`, { headers });
    expect((await page()).status).toBe(404);
    const refused = await page();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
