import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServeOptions } from '../../src/server/index.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The response cache of `switchyard serve`, from outside: the official SDK with two key trees against one server
 * (memory, SQLite) and against two replicas sharing PostgreSQL and Redis (`--cache redis`), every answer written by
 * the fake OpenAI server, which counts what reaches it. A key reads its own tree's answers and never another's.
 */
const fake = await startFakeOpenAIServer();
fake.respondWith = (body) => ({ content: `answer ${fake.requests.length} to ${JSON.stringify(body.messages)}` });
const postgres: ThrowawayPostgres | undefined = await startPostgres();
const redis: ThrowawayRedis | undefined = postgres && (await startRedis());
if (!postgres || !redis) console.warn('SKIPPED: the response cache on two replicas (PostgreSQL, Redis not installed).');
afterAll(async () => {
  await fake.close();
  await postgres?.stop();
  await redis?.stop();
});

const gateway = { env: {}, providers: { openai: { apiKey: 'test-key-openai', baseURL: fake.url } } };
const setups: Array<{ name: string; options: Pick<ServeOptions, 'cache' | 'database' | 'redis'>; replicas: number }> = [
  { name: 'one server, memory', options: { cache: { store: 'memory' } }, replicas: 1 },
  { name: 'one server, SQLite', options: { cache: { store: 'sqlite' } }, replicas: 1 },
  ...(postgres && redis
    ? [
        {
          name: 'two replicas on PostgreSQL + Redis',
          options: { cache: { store: 'redis' as const }, database: postgres.url, redis: redis.url },
          replicas: 2,
        },
      ]
    : []),
];

describe.each(setups)('$name', ({ options, replicas: count }) => {
  let servers: TestServer[] = [];
  beforeAll(async () => {
    for (let n = 0; n < count; n++) servers.push(await startTestServer({ mock: false, gateway, ...options }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    servers = [];
  });
  const first = () => servers[0]!;
  const last = () => servers.at(-1)!;

  const grant: KeyGrant = { scopes: ['chat'], allowed_agents: null, allowed_models: null, expires_at: null };
  const keyOf = async (parentId?: string) => {
    const { key, info } = await first().server.keys.create('tenant', { grant, ...(parentId ? { parentId } : {}) });
    return { key, id: info.id };
  };
  const ask = (server: TestServer, key: string, content: string) =>
    server
      .openai(key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], temperature: 0 });
  const cacheOf = (answer: object) => (answer as { switchyard?: { cache?: string } }).switchyard?.cache;

  /** Another replica sees an entry once its write has landed: asked until a hit, for a second at most. */
  async function askUntilHit(server: TestServer, key: string, content: string) {
    let answer: Awaited<ReturnType<typeof ask>> | undefined;
    await vi
      .waitFor(
        async () => {
          answer = await ask(server, key, content);
          if (cacheOf(answer) !== 'hit') throw new Error('not a hit yet');
        },
        { timeout: 1_000, interval: 50 },
      )
      .catch(() => undefined);
    return answer!;
  }

  it("a key's tree shares its answers (on every replica); another tree's key never reads them", async () => {
    const alice = await keyOf();
    const aliceChild = await keyOf(alice.id);
    const mallory = await keyOf();
    const secret = `Alice's question ${Date.now()}`;
    const before = fake.requests.length;

    const original = await ask(first(), alice.key, secret);
    expect(cacheOf(original)).toBe('miss');
    const again = await askUntilHit(last(), aliceChild.key, secret);
    expect(cacheOf(again)).toBe('hit');
    expect(again.choices[0]?.message.content).toBe(original.choices[0]?.message.content);
    expect(again.usage).toEqual(original.usage);
    expect(fake.requests.length - before).toBe(1);

    const stolen = await ask(last(), mallory.key, secret);
    expect(cacheOf(stolen)).toBe('miss');
    expect(stolen.choices[0]?.message.content).not.toBe(original.choices[0]?.message.content);
    expect(fake.requests.length - before).toBe(2);
    // Mallory's own answer is hers: Alice still gets hers.
    expect((await ask(first(), alice.key, secret)).choices[0]?.message.content).toBe(
      original.choices[0]?.message.content,
    );
    const mine = await askUntilHit(first(), mallory.key, secret);
    expect(mine.choices[0]?.message.content).toBe(stolen.choices[0]?.message.content);
    expect(fake.requests.length - before).toBe(2);

    await Promise.all(servers.map((server) => server.server.gateway.flush()));
    const record = await first().server.gateway.calls.get!(
      (again as unknown as { switchyard: { call_id: string } }).switchyard.call_id,
    );
    expect(record).toMatchObject({ cache: 'hit', cost_usd: 0, status: 'ok' });
  });

  it('a hit is streamed as chunks over SSE, with the usage when asked', async () => {
    const { key } = await keyOf();
    const content = `stream me ${Date.now()}`;
    await ask(first(), key, content);
    await askUntilHit(last(), key, content);
    const stream = await last()
      .openai(key)
      .chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toMatch(/^answer \d+ to /);
    expect(text).toContain(content);
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });
});
