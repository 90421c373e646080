import { describe, expect, it } from 'vitest';
import { defaultCatalog } from '../../src/catalog/default-catalog.ts';
import { listEmbeddingModels } from '../../src/embeddings/embedding-catalog.ts';
import {
  createServerMetrics,
  MAX_COUNTER_SERIES,
  MAX_HISTOGRAM_SERIES,
  MAX_LABEL_VALUES,
} from '../../src/server/server-metrics.ts';
import { makeRecord } from '../records/make-record.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * `/metrics` stays bounded whatever callers send (issue 36, item 3): its labels take only catalog models (else
 * `other`) and a bounded set of agents, providers and outcomes, and each metric a bounded number of series; so an
 * attack of calls naming models and agents that do not exist (refused calls included) neither grows the scrape nor
 * slows another tenant.
 */
const known = new Set([
  ...defaultCatalog()
    .list()
    .data.map((model) => model.id),
  ...listEmbeddingModels().map((m) => m.id),
]);

/** Every sample of a scrape: its metric and labels. */
function samples(text: string): Array<{ name: string; labels: Record<string, string> }> {
  const found = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    found.push({ name: match[1]!, labels });
  }
  return found;
}

/** The 95th percentile of `values`. */
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;

/** `count` requests, `width` at a time. */
async function flood(count: number, width: number, send: (n: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await send(next++);
    }),
  );
}

async function mint(server: TestServer, body: Record<string, unknown>): Promise<string> {
  const response = await api(server, '/v1/keys', { body });
  expect(response.status).toBe(201);
  return (await jsonOf(response)).key;
}

describe('metrics under an attack of made-up models and agents', () => {
  it('label only catalog models and a bounded set of agents; another tenant’s p95 stays bounded', async () => {
    const server = await startTestServer({ metrics: true, maxConcurrentPerKey: 64 });
    try {
      const botKey = await mint(server, { name: 'bot', scopes: ['chat'], allowed_agents: ['bot'] });
      const freeKey = await mint(server, { name: 'free', scopes: ['chat'] });
      const victim = await mint(server, { name: 'victim', scopes: ['chat'] });
      const chat = (key: string, model: string, agent?: string) =>
        api(server, '/v1/chat/completions', {
          key,
          body: {
            model,
            messages: [{ role: 'user', content: 'Hi.' }],
            max_tokens: 5,
            ...(agent ? { metadata: { agent_id: agent } } : {}),
          },
        });

      const latencies: number[] = [];
      const scrapes: Array<{ status: number; bytes: number; ms: number }> = [];
      let attacking = true;
      const victimCalls = (async () => {
        while (attacking) {
          const started = performance.now();
          expect((await chat(victim, 'gpt-4o-mini')).status).toBe(200);
          latencies.push(performance.now() - started);
          if (latencies.length % 10 === 0) {
            const scraped = performance.now();
            const response = await api(server, '/metrics');
            const text = await response.text();
            scrapes.push({ status: response.status, bytes: text.length, ms: performance.now() - scraped });
          }
        }
      })();
      // Models that do not exist (refused, 404) and uncatalogued ones a provider may serve; agents made up by a key
      // limited to none.
      await flood(1_500, 8, (n) => chat(botKey, n % 2 ? `no-such-model-${n}` : `openai/made-up-${n}`));
      await flood(300, 8, (n) => chat(freeKey, 'gpt-4o-mini', `agent-${n}`));
      attacking = false;
      await victimCalls;
      await server.server.gateway.flush();

      const response = await api(server, '/metrics');
      expect(response.status).toBe(200);
      const text = await response.text();
      const all = samples(text);
      const models = new Set(all.flatMap(({ labels }) => (labels.model ? [labels.model] : [])));
      for (const model of models) expect(model === 'other' || known.has(model), model).toBe(true);
      const agents = new Set(all.flatMap(({ labels }) => (labels.agent ? [labels.agent] : [])));
      expect(agents.size).toBeLessThanOrEqual(MAX_LABEL_VALUES + 2);
      expect(agents.has('other')).toBe(true);
      expect(all.length).toBeLessThan(5_000);
      const slowest = Math.max(...scrapes.map((scrape) => scrape.ms));
      console.log(
        `scrape: ${all.length} samples, ${text.length} bytes; victim p95 ${p95(latencies).toFixed(0)} ms over ` +
          `${latencies.length} calls; slowest scrape during the attack ${slowest.toFixed(0)} ms`,
      );
      expect(scrapes.every((scrape) => scrape.status === 200)).toBe(true);
      // Bounds that catch a scrape or a loop blocked for seconds, not a busy machine.
      expect(p95(latencies)).toBeLessThan(2_000);
      expect(slowest).toBeLessThan(2_000);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('each metric keeps a bounded number of series, however catalog models, agents and providers combine', async () => {
    const metrics = await createServerMetrics(() => ({ queued: 0, written: 0, dropped: 0, failed: 0 }) as never);
    const models = [...known].slice(0, 80);
    const records = [];
    for (let n = 0; n < 20_000; n++) {
      const model = models[n % models.length]!;
      const provider = `provider-${n % 7}`;
      records.push(
        makeRecord({
          model,
          provider,
          agent_id: `agent-${n % 97}`,
          time_to_first_token_ms: 5,
          attempts: [{ provider, model, outcome: `code-${n % 101}`, duration_ms: 1 }],
        }),
      );
    }
    await metrics.sink.write(records);
    const route = metrics.routes[0]!;
    const reply = await route.handle({} as never);
    const text = String(reply.body);
    // A series: a metric (a histogram's buckets, sum and count as one) and its labels but `le`.
    const series = new Map<string, Set<string>>();
    for (const { name, labels } of samples(text)) {
      const { le: _bucket, ...rest } = labels;
      const metric = name.replace(/_(bucket|sum|count)$/, '');
      if (!series.has(metric)) series.set(metric, new Set());
      series.get(metric)!.add(JSON.stringify(rest));
    }
    console.log(`synthetic: ${text.length} bytes`, Object.fromEntries([...series].map(([n, set]) => [n, set.size])));
    // The overflow series of a metric: one, or one per kept label value (a token's type).
    const histograms = ['switchyard_call_latency_seconds', 'switchyard_time_to_first_token_seconds'];
    for (const [name, set] of series)
      expect(set.size, name).toBeLessThanOrEqual(
        (histograms.includes(name) ? MAX_HISTOGRAM_SERIES : MAX_COUNTER_SERIES) + 2,
      );
    expect(series.get('switchyard_tokens_total')!.size).toBeGreaterThan(MAX_HISTOGRAM_SERIES);
    expect(text.length).toBeLessThan(1_500_000);
  });
});
