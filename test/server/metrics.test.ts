import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * `GET /metrics` (`startServer({ metrics: true })`): scraped after a run of calls, its counters agree with the call
 * records; two servers in one process keep their own counters; without the flag or the scope there is no metrics.
 */
let server: TestServer;
let other: TestServer;
beforeAll(async () => {
  server = await startTestServer({ metrics: true, maxConcurrentPerKey: 64 });
  other = await startTestServer({ metrics: true });
});
afterAll(async () => {
  await server?.stop();
  await other?.stop();
});

const scrape = async (test: TestServer) => {
  const response = await api(test, '/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

/** The value of one sample: the metric's name and exactly these labels (in any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total += Number(match[3]);
  }
  return total;
}

describe('GET /metrics', () => {
  it('counts requests, calls, tokens, cost and attempts as the call records do', async () => {
    const client = server.openai();
    for (let i = 0; i < 3; i++)
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${i}` }] });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream' }],
      stream: true,
      stream_options: { include_usage: true },
      metadata: { agent_id: 'support' },
    });
    for await (const _ of stream);
    const messages = await api(server, '/v1/messages', {
      body: { model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(messages.status).toBe(200);
    expect((await api(server, '/v1/nowhere')).status).toBe(404);
    await server.server.gateway.flush();

    const text = await scrape(server);
    const records = (await server.server.gateway.calls.list({ limit: 100 })).data;
    expect(records).toHaveLength(5);
    const route = 'POST /v1/chat/completions';
    expect(sample(text, 'switchyard_requests_total', { route, status: '200', dialect: 'chat' })).toBe(4);
    expect(sample(text, 'switchyard_requests_total', { status: '200', dialect: 'messages' })).toBe(1);
    expect(sample(text, 'switchyard_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'switchyard_calls_total')).toBe(records.length);
    expect(sample(text, 'switchyard_attempts_total', { outcome: 'ok' })).toBe(
      records.flatMap((record) => record.attempts).filter((attempt) => attempt.outcome === 'ok').length,
    );
    const sum = (read: (record: (typeof records)[number]) => number) => records.reduce((n, r) => n + read(r), 0);
    expect(sample(text, 'switchyard_tokens_total', { type: 'prompt' })).toBe(sum((r) => r.usage.prompt_tokens));
    expect(sample(text, 'switchyard_tokens_total', { type: 'completion' })).toBe(sum((r) => r.usage.completion_tokens));
    const support = records.filter((record) => record.agent_id === 'support');
    expect(support).toHaveLength(1);
    expect(sample(text, 'switchyard_tokens_total', { agent: 'support', type: 'completion' })).toBe(
      support[0]!.usage.completion_tokens,
    );
    expect(sample(text, 'switchyard_cost_usd_total')).toBeCloseTo(
      sum((r) => r.cost_usd ?? 0),
      9,
    );
    const { provider, model } = records[0]!;
    expect(sample(text, 'switchyard_call_latency_seconds_count', { provider: provider!, model: model! })).toBe(
      records.filter((record) => record.provider === provider && record.model === model).length,
    );
    expect(sample(text, 'switchyard_time_to_first_token_seconds_count')).toBe(
      records.filter((record) => record.time_to_first_token_ms !== null).length,
    );
    expect(sample(text, 'switchyard_records_written_total')).toBe(server.server.gateway.recordStats.written);
    const journalWrites = sample(text, 'switchyard_record_journal_writes_total');
    expect([journalWrites > 0, journalWrites]).toEqual([true, server.server.gateway.recordStats.journal_writes]);
    expect(text).toMatch(/^switchyard_record_queue_depth \d+$/m);
    expect(text).toMatch(/^switchyard_records_dropped_total 0$/m);

    // Another server in the same process counts only its own.
    expect(sample(await scrape(other), 'switchyard_calls_total')).toBe(0);
  });

  it('counts limiter refusals (429)', async () => {
    const limited = await startTestServer({ metrics: true, requestsPerMinutePerKey: 2 });
    try {
      let refused = 0;
      for (let i = 0; i < 50 && refused < 2; i++) if ((await api(limited, '/v1/deployments')).status === 429) refused++;
      expect(refused).toBe(2);
      const key = (await limited.server.keys.create('scraper')).key;
      const text = await (await api(limited, '/metrics', { key })).text();
      expect(sample(text, 'switchyard_refusals_total', { status: '429' })).toBe(2);
      expect(sample(text, 'switchyard_requests_total', { route: 'GET /v1/deployments', status: '429' })).toBe(2);
    } finally {
      await limited.stop();
    }
  });

  it('needs the metrics:read scope, and the flag', async () => {
    const { key } = await server.server.keys.create('chat only', {
      grant: { scopes: ['chat'], allowed_agents: null, allowed_models: null, expires_at: null },
    });
    expect((await api(server, '/metrics', { key })).status).toBe(403);
    expect((await api(server, '/metrics', { key: null })).status).toBe(401);
    // A tenant's key (minted by the admin's without scopes: metrics:read inherited) reads no other tenant's spend.
    const tenant = await jsonOf(await api(server, '/v1/keys', { body: { name: 'team-a' } }));
    const refused = await api(server, '/metrics', { key: tenant.key as string });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/every tenant/);
    const plain = await startTestServer();
    try {
      expect((await api(plain, '/metrics')).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
