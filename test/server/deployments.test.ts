import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteDeploymentStore } from '../../src/entries/stores.ts';
import { DeploymentConflictError } from '../../src/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
});
afterAll(async () => {
  await test.stop();
});

const path = (id: string) => `/v1/deployments/${encodeURIComponent(id)}`;

describe('/v1/deployments', () => {
  it('creates with PUT (201), repeats identically (200), refuses other content (409)', async () => {
    const deployment = makeDeployment({ agent_id: 'triage', number: 1 });
    const created = await api(test, path(deployment.id), { method: 'PUT', body: deployment });
    expect(created.status).toBe(201);
    expect(await jsonOf(created)).toEqual(deployment);
    expect((await api(test, path(deployment.id), { method: 'PUT', body: deployment })).status).toBe(200);

    const changed = { ...deployment, description: 'other content' };
    const conflict = await api(test, path(deployment.id), { method: 'PUT', body: changed });
    expect(conflict.status).toBe(409);
    expect((await jsonOf(conflict)).error.code).toBe('deployment_conflict');
    expect(await jsonOf(await api(test, path(deployment.id)))).toEqual(deployment);
  });

  it('validates the body and the id in the path', async () => {
    const deployment = makeDeployment({ agent_id: 'triage', number: 2 });
    const invalid = await api(test, path(deployment.id), {
      method: 'PUT',
      body: { ...deployment, version: { ...deployment.version, temprature: 1 } },
    });
    expect(invalid.status).toBe(400);
    expect((await jsonOf(invalid)).error).toMatchObject({
      code: 'invalid_deployment',
      message: expect.stringContaining('version.temprature: unknown field'),
    });
    const mismatch = await api(test, path('triage:production#99'), { method: 'PUT', body: deployment });
    expect(mismatch.status).toBe(400);
    expect((await jsonOf(mismatch)).error.param).toBe('id');
  });

  it('gets by URL-encoded id with an ETag, 304 on If-None-Match, 404 when unknown, and needs a key', async () => {
    const deployment = makeDeployment({ agent_id: 'etag', number: 3 });
    await api(test, path(deployment.id), { method: 'PUT', body: deployment });
    const first = await api(test, path(deployment.id));
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect((await api(test, path(deployment.id), { headers: { 'if-none-match': etag } })).status).toBe(304);
    const missing = await api(test, path('etag:production#404'));
    expect(missing.status).toBe(404);
    expect((await jsonOf(missing)).error.code).toBe('deployment_not_found');
    expect((await api(test, path(deployment.id), { key: null })).status).toBe(401);
  });

  it('lists as { object: "list", data } filtered by agent_id, newest first', async () => {
    for (const number of [4, 5])
      await api(test, path(`lister:dev#${number}`), {
        method: 'PUT',
        body: makeDeployment({ agent_id: 'lister', environment: 'dev', number }),
      });
    const body = await jsonOf(await api(test, '/v1/deployments?agent_id=lister'));
    expect(body.object).toBe('list');
    expect(body.data.map((item: { id: string }) => item.id)).toEqual(['lister:dev#5', 'lister:dev#4']);
  });

  it('is the API RemoteDeploymentStore speaks: put, get, list, conflict, ETag revalidation', async () => {
    const statuses: number[] = [];
    const store = new RemoteDeploymentStore({
      url: `${test.url}/v1`,
      apiKey: test.key,
      ttlMs: 0,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
    const deployment = makeDeployment({ agent_id: 'remote', environment: 'staging', number: 7 });
    await store.put(deployment);
    await store.put(deployment);
    expect(await store.get(deployment.id)).toEqual(deployment);
    expect(await store.get(deployment.id)).toEqual(deployment);
    expect(statuses.slice(-2)).toEqual([200, 304]);
    expect((await store.list({ agent_id: 'remote' })).map((item) => item.id)).toEqual([deployment.id]);
    expect(await store.get('remote:staging#8')).toBeUndefined();
    await expect(store.put({ ...deployment, description: 'changed' })).rejects.toBeInstanceOf(DeploymentConflictError);
    expect(store.stale).toBe(false);
  });

  it('runs a stored deployment over HTTP as model switchyard/deployment/<id>', async () => {
    const deployment = makeDeployment(
      { agent_id: 'support', number: 3 },
      {
        output_schema: {
          json_schema: {
            type: 'object',
            properties: { answer: { type: 'string' } },
            required: ['answer'],
            additionalProperties: false,
          },
        },
      },
    );
    expect((await api(test, path(deployment.id), { method: 'PUT', body: deployment })).status).toBe(201);
    const completion = (await test.openai().chat.completions.create({
      model: `switchyard/deployment/${deployment.id}`,
      messages: [],
      input: { product: 'Switchyard', ticket: 'The stream stops.' },
    } as never)) as unknown as {
      choices: Array<{ message: { content: string } }>;
      switchyard: { deployment_id: string; agent_id: string };
    };
    expect(completion.switchyard).toMatchObject({ deployment_id: deployment.id, agent_id: 'support' });
    expect(JSON.parse(completion.choices[0]!.message.content)).toHaveProperty('answer');

    const unknown = await api(test, '/v1/chat/completions', {
      body: { model: 'switchyard/deployment/support:production#99', input: {} },
    });
    expect(unknown.status).toBe(404);
    expect((await jsonOf(unknown)).error.code).toBe('deployment_not_found');
  });
});
