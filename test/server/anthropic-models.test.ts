import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/** `/v1/models` in Anthropic's shape for Anthropic's SDK, which sends `anthropic-version` on every request. */
let test: TestServer;
let client: Anthropic;
beforeAll(async () => {
  test = await startTestServer();
  client = new Anthropic({ baseURL: test.url, apiKey: test.key, maxRetries: 0 });
});
afterAll(() => test.stop());

describe("the Anthropic SDK's models.list and models.retrieve", () => {
  it('lists every model in pages, newest first, in Anthropic’s shape', async () => {
    const all: Anthropic.ModelInfo[] = [];
    for await (const model of client.models.list()) all.push(model);
    const catalog = (await jsonOf(await api(test, '/v1/models'))).data as Array<{ id: string; lifecycle: string }>;
    // Retired models are listed only when asked for, as Anthropic lists them.
    const listed = catalog.filter((model) => model.lifecycle !== 'retired');
    expect(all.map((model) => model.id).sort()).toEqual(listed.map((model) => model.id).sort());
    const haiku = all.find((model) => model.id === 'claude-haiku-4-5-20251001');
    expect(haiku).toMatchObject({
      type: 'model',
      id: 'claude-haiku-4-5-20251001',
      display_name: 'Claude Haiku 4.5',
      created_at: '2025-10-15T00:00:00Z',
      max_input_tokens: 200_000,
      max_tokens: 64_000,
    });
    const created = all.map((model) => Date.parse(model.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('pages with limit, after_id and before_id', async () => {
    const first = await client.models.list({ limit: 3 });
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    expect(first.first_id).toBe(first.data[0]!.id);
    expect(first.last_id).toBe(first.data[2]!.id);
    const next = await client.models.list({ limit: 2, after_id: first.data[0]!.id });
    expect(next.data.map((model) => model.id)).toEqual(first.data.slice(1).map((model) => model.id));
    const before = await client.models.list({ limit: 5, before_id: first.data[2]!.id });
    expect(before.data.map((model) => model.id)).toEqual(first.data.slice(0, 2).map((model) => model.id));
  });

  it('retrieves one model by id or alias; an unknown one is a NotFoundError in Anthropic’s shape', async () => {
    expect(await client.models.retrieve('claude-haiku-4-5')).toMatchObject({
      type: 'model',
      id: 'claude-haiku-4-5-20251001',
      display_name: 'Claude Haiku 4.5',
    });
    expect(await client.models.retrieve('gpt-sol-latest')).toMatchObject({ type: 'model', id: 'gpt-sol-latest' });
    const error = await client.models.retrieve('no-such-model').catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('keeps the OpenAI shape without anthropic-version', async () => {
    const model = await test.openai().models.retrieve('claude-haiku-4-5');
    expect(model).toMatchObject({ object: 'model', id: 'claude-haiku-4-5-20251001' });
  });
});
