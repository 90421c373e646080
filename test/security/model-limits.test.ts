import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/types.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/** A model-limited key stays on its models: no fallback (per request, deployment or gateway) leaves them. */
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let test: TestServer;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  anthropic = await startFakeAnthropicServer();
  test = await startTestServer({
    mock: false,
    gateway: {
      providers: {
        openai: { apiKey: 'sk-openai-test', baseURL: openai.url },
        anthropic: { apiKey: 'sk-ant-test', baseURL: anthropic.url },
      },
      retry: { maxRetries: 0 },
      fallbacks: ['claude-haiku-4-5'],
    },
  });
});
afterAll(async () => {
  await test.stop();
  await openai.close();
  await anthropic.close();
});

async function limitedKey(): Promise<string> {
  const grant = { scopes: ['chat' as const], allowed_agents: null, allowed_models: ['gpt-4o-mini'], expires_at: null };
  return (await test.server.keys.create('limited', { grant })).key;
}

describe('a model-limited key', () => {
  it('is not answered by a fallback outside its models: each is an attempt "not_allowed", never called', async () => {
    const key = await limitedKey();
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    const before = anthropic.requests.length;
    const error = await test
      .openai(key)
      .chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        // @ts-expect-error: Switchyard's own field
        fallbacks: ['claude-opus-4-5'],
      })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(anthropic.requests.length).toBe(before);
    await test.server.gateway.flush();
    const [record] = (await test.server.gateway.calls.list({ limit: 1 })).data;
    const outcomes = record!.attempts.map((attempt: Attempt) => `${attempt.model}:${attempt.outcome}`);
    expect(outcomes[0]).toMatch(/^gpt-4o-mini.*:server_error$/);
    const claude = outcomes.filter((outcome) => outcome.includes('claude'));
    expect(claude.length).toBeGreaterThan(0);
    expect(claude.every((outcome) => outcome.endsWith(':not_allowed'))).toBe(true);

    // The gateway's own fallbacks are held to the same list.
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    await expect(
      test.openai(key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(anthropic.requests.length).toBe(before);
    await test.server.gateway.flush();
    const [second] = (await test.server.gateway.calls.list({ limit: 1 })).data;
    const haiku = second!.attempts.filter((attempt: Attempt) => attempt.model.includes('haiku'));
    expect(haiku.length).toBeGreaterThan(0);
    expect(haiku.every((attempt: Attempt) => attempt.outcome === 'not_allowed')).toBe(true);
  });

  it('is refused with 403 when the request names only models outside its list', async () => {
    const key = await limitedKey();
    const before = anthropic.requests.length;
    const error = await test
      .openai(key)
      .chat.completions.create({ model: 'claude-opus-4-5', messages: [{ role: 'user', content: 'hi' }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(anthropic.requests.length).toBe(before);
  });

  it('is answered by its own model through an alias or a provider prefix', async () => {
    const key = await limitedKey();
    const answer = await test
      .openai(key)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.model).toMatch(/^gpt-4o-mini/);
  });
});

/**
 * Issue 37: the model rule is decided once (aliases resolved against the catalog), so every write that pins a model
 * answers as a call to it would. A key allowed `gpt-4o-mini` (an alias of `gpt-4o-mini-2024-07-18`) may call the
 * pinned id, so it may deploy it; an experiment's version is a call the key will make, so a model outside its list is
 * refused when the version is added, not when its cells fail.
 */
describe('a model-limited key writing what pins a model', () => {
  async function writerKey(): Promise<string> {
    const grant = {
      scopes: ['chat' as const, 'deployments:read' as const, 'deployments:write' as const],
      allowed_agents: null,
      allowed_models: ['gpt-4o-mini'],
      expires_at: null,
    };
    return (await test.server.keys.create('writer', { grant })).key;
  }
  const prompt = [{ role: 'user' as const, content: 'Say {{word}}' }];

  it('may deploy the pinned id of an allowed alias, as it may call it; another model is a 403', async () => {
    const key = await writerKey();
    const called = await test.openai(key).chat.completions.create({
      model: 'gpt-4o-mini-2024-07-18',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(called.model).toMatch(/^gpt-4o-mini/);
    const pinned = makeDeployment({ agent_id: 'pinned', number: 1 }, { model: 'gpt-4o-mini-2024-07-18' });
    const put = await api(test, `/v1/deployments/${encodeURIComponent(pinned.id)}`, {
      key,
      method: 'PUT',
      body: pinned,
    });
    expect(put.status).toBe(201);
    const other = makeDeployment({ agent_id: 'pinned', number: 2 }, { model: 'gpt-4o' });
    const refused = await api(test, `/v1/deployments/${encodeURIComponent(other.id)}`, {
      key,
      method: 'PUT',
      body: other,
    });
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error.message).toMatch(/may not use gpt-4o\b/);
  });

  it('is refused (403) an experiment version outside its models, inline or as a deployment override', async () => {
    const key = await writerKey();
    await test.server.deployments.put!(makeDeployment({ agent_id: 'lab', number: 1 }, { model: 'gpt-4o-mini' }));
    const outside = await api(test, '/v1/experiments', {
      key,
      body: { agent_id: 'lab', versions: [{ model: 'gpt-4o', messages: prompt }] },
    });
    expect(outside.status).toBe(403);
    expect((await jsonOf(outside)).error.message).toMatch(/may not use gpt-4o\b/);

    const allowed = await api(test, '/v1/experiments', {
      key,
      body: { agent_id: 'lab', versions: [{ model: 'gpt-4o-mini-2024-07-18', messages: prompt }] },
    });
    expect(allowed.status).toBe(201);
    const { id } = await jsonOf(allowed);
    const overridden = await api(test, `/v1/experiments/${id}/versions`, {
      key,
      body: { versions: [{ environment: 'production', overrides: { model: 'claude-haiku-4-5' } }] },
    });
    expect(overridden.status).toBe(403);
    const unchanged = await jsonOf(await api(test, `/v1/experiments/${id}`, { key: test.key }));
    expect(unchanged.versions).toHaveLength(1);
  });
});
