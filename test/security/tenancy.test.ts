import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callIdOf } from '../../src/dialects/responses/from-chat.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Attacks on one shared `serve` from keys that must not see each other: each through the HTTP API and the official
 * SDKs, as a tenant would try them: another key's conversation, an agent-limited key acting as another agent, a
 * model-limited key answered by another model, and the key-scoped call queries.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
const redis: ThrowawayRedis | undefined = postgres && (await startRedis());
if (!postgres || !redis) console.warn('SKIPPED: tenancy on PostgreSQL + Redis (not installed; CI installs them).');
afterAll(async () => {
  await postgres?.stop();
  await redis?.stop();
});
const backends = [
  { name: 'one server on SQLite', shared: undefined },
  ...(postgres && redis ? [{ name: 'two replicas on PostgreSQL + Redis', shared: { postgres, redis } }] : []),
];

describe.each(backends)('$name', ({ shared }) => {
  /** The victim's server; `other` is where the attacker calls from (the other replica, when there are two). */
  let test: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    const options = shared ? { database: shared.postgres.url, redis: shared.redis.url } : {};
    test = await startTestServer(options);
    other = shared ? await startTestServer(options) : test;
  }, 60_000);
  afterAll(async () => {
    if (other !== test) await other.stop();
    await test.stop();
  });

  const base: KeyGrant = { scopes: ['chat', 'models'], allowed_agents: null, allowed_models: null, expires_at: null };
  async function keyWith(grant: Partial<KeyGrant>, parentId?: string): Promise<{ key: string; id: string }> {
    const { key, info } = await test.server.keys.create('tenant', {
      grant: { ...base, ...grant },
      ...(parentId ? { parentId } : {}),
    });
    return { key, id: info.id };
  }

  async function recordsOf(callId: string) {
    await Promise.all([test, other].map((server) => server.server.gateway.flush()));
    return test.server.gateway.calls.get!(callId);
  }

  describe('a conversation belongs to its key (previous_response_id)', () => {
    it('another key cannot continue (or read back) a response: the same 404 as an id that does not exist', async () => {
      const alice = await keyWith({});
      const mallory = await keyWith({});
      const first = await test.openai(alice.key).responses.create({
        model: 'gpt-4o-mini',
        input: 'My account number is 4471-SECRET.',
      });
      // In the shared store before the theft: a refusal that holds against a record there, not one not there yet.
      await test.server.gateway.flush();

      const stolen = await other
        .openai(mallory.key)
        .responses.create({ model: 'gpt-4o-mini', previous_response_id: first.id, input: 'Repeat everything above.' })
        .catch((error: unknown) => error);
      const unknown = await other
        .openai(mallory.key)
        .responses.create({
          model: 'gpt-4o-mini',
          previous_response_id: `resp_${'0'.repeat(32)}`,
          input: 'Repeat everything above.',
        })
        .catch((error: unknown) => error);
      expect(stolen).toBeInstanceOf(OpenAI.NotFoundError);
      expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
      const body = (error: unknown) => {
        const { message, code, param } = (error as InstanceType<typeof OpenAI.APIError>).error as Record<
          string,
          unknown
        >;
        return { code, param, message: String(message).replace(/"resp_[^"]+"/, '<id>') };
      };
      expect(body(stolen)).toEqual(body(unknown));

      // Nothing of Alice's conversation reached Mallory's records.
      await Promise.all([test, other].map((server) => server.server.gateway.flush()));
      const { data } = await test.server.gateway.calls.list({ limit: 1000 });
      const mallorys = data.filter((record) => record.metadata.api_key_id === mallory.id);
      expect(JSON.stringify(mallorys)).not.toContain('4471-SECRET');

      // Alice herself continues it.
      const second = await test
        .openai(alice.key)
        .responses.create({ model: 'gpt-4o-mini', previous_response_id: first.id, input: 'And then?' });
      const record = await recordsOf(callIdOf(second.id)!);
      expect(JSON.stringify(record?.input_messages ?? [])).toContain('4471-SECRET');
    });
  });

  describe('an agent-limited key acts only as its agents, on every route', () => {
    it('the Messages API attributes the call to the agent named in metadata, and refuses another', async () => {
      const x = await keyWith({ allowed_agents: ['x', 'z'] });
      const anthropic = new Anthropic({ baseURL: other.url, apiKey: x.key, maxRetries: 0 });
      const params = (agent: string) =>
        ({
          model: 'claude-sonnet-4-5',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { agent_id: agent } as Anthropic.Metadata,
        }) as Anthropic.MessageCreateParamsNonStreaming;
      const message = await anthropic.messages.create(params('x'));
      const callId = (message as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
      expect((await recordsOf(callId))?.agent_id).toBe('x');
      await expect(anthropic.messages.create(params('y'))).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
      // Naming no agent is refused when the key has several to choose from.
      const unnamed = { ...params('x'), metadata: {} };
      await expect(anthropic.messages.create(unnamed)).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    });

    it('a key limited to one agent runs as it when the call names none, on every dialect', async () => {
      const only = await keyWith({ allowed_agents: ['solo'] });
      const chat = await test.openai(only.key).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const chatId = (chat as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
      expect((await recordsOf(chatId))?.agent_id).toBe('solo');
      const response = await test.openai(only.key).responses.create({ model: 'gpt-4o-mini', input: 'hi' });
      expect((await recordsOf(callIdOf(response.id)!))?.agent_id).toBe('solo');
      const embedding = await test.openai(only.key).embeddings.create({ model: 'text-embedding-3-small', input: 'hi' });
      const embeddingId = (embedding as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
      expect((await recordsOf(embeddingId))?.agent_id).toBe('solo');
      await expect(
        test
          .openai(only.key)
          .embeddings.create(
            { model: 'text-embedding-3-small', input: 'hi' },
            { headers: { 'x-switchyard-agent-id': 'someone-else' } },
          ),
      ).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
      const modelLimited = await keyWith({ allowed_models: ['gpt-4o-mini'] });
      await expect(
        test.openai(modelLimited.key).embeddings.create({ model: 'text-embedding-3-small', input: 'hi' }),
      ).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    });

    it("another agent's deployment is not there: not callable, not readable, not listable, not writable", async () => {
      const admin = test.key;
      const theirs = makeDeployment({ agent_id: 'y', number: 1 });
      const put = (id: string, body: unknown, key: string) =>
        api(test, `/v1/deployments/${encodeURIComponent(id)}`, { method: 'PUT', body, key });
      expect((await put(theirs.id, theirs, admin)).status).toBe(201);
      const x = await keyWith({
        allowed_agents: ['x'],
        scopes: ['chat', 'models', 'deployments:read', 'deployments:write'],
      });

      const call = await test
        .openai(x.key)
        .chat.completions.create({
          model: `switchyard/deployment/${theirs.id}`,
          messages: [{ role: 'user', content: 'hi' }],
        })
        .catch((error: unknown) => error);
      const missing = await test
        .openai(x.key)
        .chat.completions.create({
          model: 'switchyard/deployment/y:production#999',
          messages: [{ role: 'user', content: 'hi' }],
        })
        .catch((error: unknown) => error);
      expect(call).toBeInstanceOf(OpenAI.NotFoundError);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      expect((call as InstanceType<typeof OpenAI.APIError>).code).toBe('deployment_not_found');
      expect(String((missing as Error).message)).not.toContain(theirs.id);

      const read = await api(test, `/v1/deployments/${encodeURIComponent(theirs.id)}`, { key: x.key });
      expect(read.status).toBe(404);
      expect(JSON.stringify(await jsonOf(read))).not.toContain('support tickets');
      expect((await jsonOf(await api(test, '/v1/deployments?agent_id=y', { key: x.key }))).data).toEqual([]);
      expect(
        ((await jsonOf(await api(test, '/v1/deployments', { key: x.key }))).data as Array<{ agent_id: string }>).some(
          (deployment) => deployment.agent_id === 'y',
        ),
      ).toBe(false);
      const next = makeDeployment({ agent_id: 'y', number: 2 });
      expect((await put(next.id, next, x.key)).status).toBe(403);
      const own = makeDeployment({ agent_id: 'x', number: 1 });
      expect((await put(own.id, own, x.key)).status).toBe(201);

      const client = new Client({ name: 'tenant', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${x.key}` } },
        }),
      );
      const listed = await client.callTool({ name: 'list_deployments', arguments: { agent_id: 'y' } });
      expect(JSON.parse((listed.content as Array<{ text: string }>)[0]!.text)).toEqual([]);
      await client.close();
    });
  });

  describe('call queries see only what the key may read', () => {
    it('calls:read:own reads the calls of the key and the keys minted under it, and nothing else', async () => {
      const parent = await keyWith({ scopes: ['chat', 'models', 'calls:read:own', 'keys:create'] });
      const child = await keyWith({ scopes: ['chat'] }, parent.id);
      const stranger = await keyWith({});
      const ask = (key: string, agent: string) =>
        test.openai(key).chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { agent_id: agent },
        });
      await ask(parent.key, 'shared-name');
      await ask(child.key, 'shared-name');
      await ask(stranger.key, 'shared-name');
      await Promise.all([test, other].map((server) => server.server.gateway.flush()));
      const listed = await jsonOf(await api(other, '/v1/calls?limit=1000', { key: parent.key }));
      const keys = new Set(
        (listed.data as Array<{ metadata: Record<string, string> }>).map((r) => r.metadata.api_key_id),
      );
      expect(keys).toEqual(new Set([parent.id, child.id]));
      // Traces, costs and agent totals span every agent: not for this key.
      expect((await api(test, '/v1/agents', { key: parent.key })).status).toBe(403);
    });

    it('a calls:read key limited to agents reads only their calls, and no cross-agent view', async () => {
      const reader = await keyWith({ scopes: ['calls:read'], allowed_agents: ['x'] });
      expect((await api(test, '/v1/calls?agent_id=y', { key: reader.key })).status).toBe(403);
      const own = await jsonOf(await api(test, '/v1/calls', { key: reader.key }));
      expect((own.data as Array<{ agent_id: string }>).every((record) => record.agent_id === 'x')).toBe(true);
      for (const path of ['/v1/agents', '/v1/costs/daily', '/v1/workflows/t-1'])
        expect((await api(test, path, { key: reader.key })).status).toBe(403);
    });
  });
});
