import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderOffering } from '../../src/catalog/catalog-schema.ts';
import { LatencyTracker } from '../../src/completion/latency-tracker.ts';
import { routeOfferings } from '../../src/completion/route-offerings.ts';
import { extendCatalog } from '../../src/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { gatewayAgainst } from '../helpers/openai-env.ts';

/** `routing: 'order' | 'cost' | 'latency'`: which of a model's offerings is tried first. */
const offering = (provider: string, input?: number): ProviderOffering => ({
  provider,
  model: 'm',
  ...(input === undefined ? {} : { pricing: { input, output: input * 4, cached_input: input / 2 } }),
});
const size = { promptTokens: 1_000, outputTokens: 1, outputAsked: false };
const providersOf = (offerings: readonly ProviderOffering[]) => offerings.map((item) => item.provider);

describe('routeOfferings', () => {
  const offerings = [offering('openai', 5), offering('together'), offering('groq', 1), offering('fireworks', 3)];

  it('keeps the catalog order for order', () => {
    expect(providersOf(routeOfferings(offerings, 'order', size, new LatencyTracker()))).toEqual([
      'openai',
      'together',
      'groq',
      'fireworks',
    ]);
  });

  it('puts the cheapest first for cost, and an offering without a price after those with one', () => {
    expect(providersOf(routeOfferings(offerings, 'cost', size, new LatencyTracker()))).toEqual([
      'groq',
      'fireworks',
      'openai',
      'together',
    ]);
  });

  it('puts the fastest observed first for latency, the unobserved after them in catalog order', () => {
    const latency = new LatencyTracker();
    latency.observe('fireworks', 'm', 300);
    latency.observe('groq', 'm', 900);
    expect(providersOf(routeOfferings(offerings, 'latency', size, latency))).toEqual([
      'fireworks',
      'groq',
      'openai',
      'together',
    ]);
  });
});

describe('LatencyTracker', () => {
  it('moves a fifth of the way to each new observation', () => {
    const latency = new LatencyTracker();
    latency.observe('groq', 'm', 100);
    latency.observe('groq', 'm', 600);
    expect(latency.estimate('groq', 'm')).toBe(200);
    expect(latency.estimate('groq', 'other')).toBeUndefined();
  });

  it('keeps at most its cap of entries, dropping the least recently observed', () => {
    const latency = new LatencyTracker(3);
    for (const model of ['a', 'b', 'c']) latency.observe('p', model, 10);
    latency.observe('p', 'a', 10); // a is now the most recent
    latency.observe('p', 'd', 10);
    expect(latency.size).toBe(3);
    expect(latency.estimate('p', 'b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((model) => latency.estimate('p', model))).toEqual([10, 10, 10]);
  });
});

describe('routing through the gateway', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(() => server.close());

  // One model offered by three OpenAI-compatible providers at three prices; the fake tells them apart by key.
  const catalog = extendCatalog([
    {
      id: 'routed-model-1',
      name: 'Routed',
      maker: 'openai',
      release_date: '2026-01-01',
      context_window: 32_000,
      max_output_tokens: 4_000,
      supports: {
        reasoning: false,
        structured_outputs: false,
        json_mode: true,
        tools: true,
        parallel_tool_calls: true,
        images: false,
        temperature: true,
        top_p: true,
        stop: true,
        reasoning_can_disable: false,
      },
      providers: [
        { provider: 'together', model: 'routed', pricing: { input: 3, output: 3, cached_input: 3 } },
        { provider: 'groq', model: 'routed', pricing: { input: 0.5, output: 0.5, cached_input: 0.5 } },
        { provider: 'fireworks', model: 'routed', pricing: { input: 1, output: 1, cached_input: 1 } },
      ],
    },
  ]);
  const servedBy = () => String(server.requests.at(-1)?.headers.authorization).replace('Bearer test-key-', '');
  const ask = [{ role: 'user' as const, content: 'Hello?' }];

  it('sends to the first offering by default, to the cheapest with routing: cost', async () => {
    const gateway = gatewayAgainst(server.url, { catalog });
    const first = await gateway.createCompletion({ model: 'routed-model-1', messages: ask });
    expect([first.switchyard.provider, servedBy()]).toEqual(['together', 'together']);
    const cheapest = await gateway.createCompletion({ model: 'routed-model-1', messages: ask, routing: 'cost' });
    expect([cheapest.switchyard.provider, servedBy()]).toEqual(['groq', 'groq']);
    await gateway.close();
  });

  it('with routing: cost, a failing cheapest offering falls back to the next cheapest', async () => {
    const gateway = gatewayAgainst(server.url, { catalog, retry: { maxRetries: 0 } });
    server.enqueue({ error: { status: 503, message: 'down', type: 'server_error' } });
    const response = await gateway.createCompletion({ model: 'routed-model-1', messages: ask, routing: 'cost' });
    expect(response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`)).toEqual([
      'groq:server_error',
      'fireworks:ok',
    ]);
    await gateway.close();
  });

  it('with routing: latency, the offering this gateway saw answer fastest goes first', async () => {
    const gateway = gatewayAgainst(server.url, { catalog });
    server.enqueue({ delayMs: 120 }, {}, {});
    for (const provider of ['together', 'groq', 'fireworks'])
      await gateway.createCompletion({ model: `${provider}/routed`, messages: ask });
    const response = await gateway.createCompletion({ model: 'routed-model-1', messages: ask, routing: 'latency' });
    expect(response.switchyard.provider).not.toBe('together');
    expect(['groq', 'fireworks']).toContain(servedBy());
    await gateway.close();
  });
});

describe('the gateway routing option', () => {
  it('orders offerings for every call that names none; a call may still ask for order', async () => {
    const server = await startFakeOpenAIServer();
    const catalog = extendCatalog([
      {
        id: 'routed-model-2',
        base: 'gpt-4o-2024-11-20',
        providers: [
          { provider: 'together', model: 'routed', pricing: { input: 3, output: 3, cached_input: 3 } },
          { provider: 'groq', model: 'routed', pricing: { input: 0.5, output: 0.5, cached_input: 0.5 } },
        ],
      },
    ]);
    const gateway = gatewayAgainst(server.url, { catalog, routing: 'cost' });
    const ask = [{ role: 'user' as const, content: 'Hello?' }];
    const cheapest = await gateway.createCompletion({ model: 'routed-model-2', messages: ask });
    const ordered = await gateway.createCompletion({ model: 'routed-model-2', messages: ask, routing: 'order' });
    expect([cheapest.switchyard.provider, ordered.switchyard.provider]).toEqual(['groq', 'together']);
    await gateway.close();
    await server.close();
  });
});
