import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeOptions } from '../../src/server/index.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The response cache is per tenant (issue 36, item 7): two tenants an admin key mints over `POST /v1/keys` (the
 * documented way to make tenants) never read each other's answers, whatever the store (memory, SQLite, Redis; keys in
 * SQLite or PostgreSQL); a key a tenant mints for itself reads the tenant's. Every answer is written by the fake
 * OpenAI server, which counts what reaches it.
 */
const fake = await startFakeOpenAIServer();
fake.respondWith = (body) => ({ content: `answer ${fake.requests.length} to ${JSON.stringify(body.messages)}` });
const postgres: ThrowawayPostgres | undefined = await startPostgres();
const redis: ThrowawayRedis | undefined = await startRedis();
if (!postgres || !redis) console.warn('SKIPPED: the cache on Redis / PostgreSQL (not installed; CI installs them).');
afterAll(async () => {
  await fake.close();
  await postgres?.stop();
  await redis?.stop();
});

const gateway = { env: {}, providers: { openai: { apiKey: 'test-key-openai', baseURL: fake.url } } };
type Setup = { name: string; options: Pick<ServeOptions, 'cache' | 'database' | 'redis'> };
const setups: Setup[] = [
  { name: 'memory', options: { cache: { store: 'memory' } } },
  { name: 'SQLite', options: { cache: { store: 'sqlite' } } },
  ...(redis ? [{ name: 'Redis', options: { cache: { store: 'redis' as const }, redis: redis.url } }] : []),
  ...(postgres && redis
    ? [
        {
          name: 'Redis, keys in PostgreSQL',
          options: { cache: { store: 'redis' as const }, redis: redis.url, database: postgres.url },
        },
      ]
    : []),
];

describe.each(setups)('$name', ({ options }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ mock: false, gateway, ...options });
  }, 60_000);
  afterAll(() => server?.stop());

  /** A key minted over HTTP by `parent` (the admin key by default), as a tenant is made. */
  async function mint(name: string, scopes: string[], parent = server.key): Promise<{ key: string; tenant: string }> {
    const response = await api(server, '/v1/keys', { key: parent, body: { name, scopes } });
    expect(response.status).toBe(201);
    return jsonOf(response);
  }
  const ask = (key: string, content: string) =>
    server
      .openai(key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], temperature: 0 });
  const cacheOf = (answer: object) => (answer as { switchyard?: { cache?: string } }).switchyard?.cache;

  it('siblings the admin key mints never read each other; a tenant’s own child reads its answers', async () => {
    const alice = await mint('alice', ['chat', 'keys:create']);
    const bob = await mint('bob', ['chat']);
    const aliceBot = await mint('alice-bot', ['chat'], alice.key);
    const question = `What is my balance? ${options.cache?.store} ${Date.now()}`;
    const before = fake.requests.length;

    const original = await ask(alice.key, question);
    expect(cacheOf(original)).toBe('miss');
    const stolen = await ask(bob.key, question);
    expect(cacheOf(stolen)).toBe('miss');
    expect(stolen.choices[0]?.message.content).not.toBe(original.choices[0]?.message.content);
    expect(fake.requests.length - before).toBe(2);

    const shared = await ask(aliceBot.key, question);
    expect(cacheOf(shared)).toBe('hit');
    expect(shared.choices[0]?.message.content).toBe(original.choices[0]?.message.content);
    expect(fake.requests.length - before).toBe(2);
  });

  it('the tenant is stated: its own id when the admin minted it, its parent’s when a tenant did', async () => {
    const team = await mint('team', ['chat', 'keys:create']);
    const bot = await mint('team-bot', ['chat', 'keys:create'], team.key);
    const botChild = await mint('team-bot-child', ['chat'], bot.key);
    const teamId = (team as unknown as { id: string }).id;
    expect(team.tenant).toBe(teamId);
    expect(bot.tenant).toBe(teamId);
    expect(botChild.tenant).toBe(teamId);
    const listed = await jsonOf(await api(server, '/v1/keys'));
    const admin = listed.data.find((key: { parent_id: string | null }) => key.parent_id === null);
    expect(admin.tenant).toBe(admin.id);
    for (const key of listed.data.filter((each: { ancestors: string[] }) => each.ancestors.includes(teamId)))
      expect(key.tenant).toBe(teamId);
  });
});
