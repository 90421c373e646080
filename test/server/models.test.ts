import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
});
afterAll(async () => {
  await test.stop();
});

describe('GET /v1/models', () => {
  it('lists the catalog without a key as listModels() does, the media models as listMediaModels()', async () => {
    const response = await api(test, '/v1/models', { key: null });
    expect(response.status).toBe(200);
    const gateway = createGateway({ mock: true });
    const expected = { ...gateway.listModels(), media: await gateway.listMediaModels() };
    expect(await jsonOf(response)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('filters reasoning models with ?reasoning=true, through the openai SDK too', async () => {
    const body = (await jsonOf(await api(test, '/v1/models?reasoning=true', { key: null }))) as {
      data: Array<{ supports: { reasoning: boolean } }>;
    };
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((model) => model.supports.reasoning)).toBe(true);
    const all = [];
    for await (const model of test.openai().models.list()) all.push(model);
    expect(all.length).toBeGreaterThan(body.data.length);
    expect((await api(test, '/v1/models?reasoning=maybe')).status).toBe(400);
  });

  it('returns one model by id, dots included, and resolves aliases', async () => {
    const ids = createGateway({ mock: true })
      .listModels()
      .data.map((model) => model.id);
    const dotted = ids.find((id) => id.includes('.'))!;
    const model = await test.openai().models.retrieve(dotted);
    expect(model.id).toBe(dotted);
    const alias = await jsonOf(await api(test, `/v1/models/${encodeURIComponent('gpt-sol-latest')}`));
    expect(alias.id).toBe('gpt-sol-latest');
  });

  it('answers an unknown id with a 404 OpenAI error', async () => {
    const response = await api(test, `/v1/models/${encodeURIComponent('ollama:llama3.3:70b')}`, { key: null });
    expect(response.status).toBe(404);
    expect((await jsonOf(response)).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
    });
  });
});
