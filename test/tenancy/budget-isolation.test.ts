import { afterAll, describe, expect, it } from 'vitest';
import { type BudgetRule, createGateway, SwitchyardError } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { startRedis } from '../helpers/redis.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Budgets from outside, as a tenant attacking `switchyard serve` would try them (issue 36): what they count is what is
 * sent, they never forget a spent key, and one tenant's traces and workflows are not another's.
 */

const redis = await startRedis();
if (!redis) console.warn('SKIPPED: budgets in Redis (redis-server not installed; CI installs it).');
afterAll(() => redis?.stop());
/** Where spend is counted: this process, or Redis (`--redis`). */
const stores = [{ store: 'memory', redis: undefined }, ...(redis ? [{ store: 'Redis', redis: redis.url }] : [])];

/**
 * The simulator, answering "Done." (its usage counted from the prompt it got) only once `expected` calls have either
 * reached it or been refused: every call admitted is in flight at once, as against a real provider.
 */
function gatedSimulator() {
  let expected = Number.POSITIVE_INFINITY;
  let seen = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const count = () => {
    if (++seen >= expected) open();
  };
  return {
    mock: createMockProvider({
      respond: async () => {
        count();
        await opened;
        return { content: 'Done.' };
      },
    }),
    /** Sends every request at once; a refused one counts as seen. */
    async all(requests: Array<() => Promise<Response>>): Promise<number[]> {
      expected = requests.length;
      const answers = await Promise.all(
        requests.map((send) =>
          send().then((answer) => {
            if (answer.status !== 200) count();
            return answer.status;
          }),
        ),
      );
      return answers;
    },
  };
}

/** A server (gpt-4o-mini at $0.15 / $0.60 per 1M tokens) with these budget rules. */
function serverWith(
  rules: BudgetRule[],
  options: { maxTracked?: number; mock?: ReturnType<typeof createMockProvider>; redis?: string | undefined } = {},
): Promise<TestServer> {
  const { maxTracked, mock = true, redis } = options;
  const budgets = { rules, ...(maxTracked ? { maxTracked } : {}) };
  return startTestServer({ mock, redis, gateway: { budgets } });
}

/** A tenant: a chat key the admin key mints over HTTP. */
async function tenant(server: TestServer, name: string): Promise<{ key: string; id: string }> {
  const response = await api(server, '/v1/keys', { body: { name, scopes: ['chat'] } });
  expect(response.status).toBe(201);
  return jsonOf(response);
}

/** A short answer (`max_tokens: 50`): the hold is the prompt, nearly all of it. */
const chat = (server: TestServer, key: string, content: string, metadata: Record<string, string> = {}) =>
  api(server, '/v1/chat/completions', {
    key,
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], metadata, max_tokens: 50 },
  });

/** What a tenant's answered calls cost, from their records. */
async function spentBy(server: TestServer, keyId: string): Promise<number> {
  await server.server.gateway.flush();
  const { data } = await server.server.gateway.calls.list({ limit: 1_000, api_key_ids: [keyId] });
  return data.reduce((sum, record) => sum + (record.cost_usd ?? 0), 0);
}

describe('budgets and token limits count what is sent (item 4)', () => {
  /** 400 kB of text that happens to start with `data:`: 100,000 tokens, not an inline file. */
  const prompt = (n: number) => `data: ${n} ${'x'.repeat(400_000)}`;

  it('20 concurrent 400 kB prompts starting with "data:" pass a $0.05 budget by one call at most', async () => {
    const simulator = gatedSimulator();
    const server = await serverWith([{ scope: 'key', usd: 0.05, window: 'day' }], { mock: simulator.mock });
    try {
      const attacker = await tenant(server, 'attacker');
      const statuses = await simulator.all(
        Array.from({ length: 20 }, (_, n) => () => chat(server, attacker.key, prompt(n))),
      );
      expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
      // One such call costs and holds ~$0.015 (100,000 prompt tokens): 4 fit under $0.05, the 4th passing it.
      const spent = await spentBy(server, attacker.id);
      expect(spent).toBeLessThanOrEqual(0.05 + 0.0152);
      expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(4);
    } finally {
      await server.stop();
    }
  });

  it('20 concurrent 400 kB prompts pass a 50,000 tokens-per-minute limit once', async () => {
    const simulator = gatedSimulator();
    const server = await serverWith([{ scope: 'key', tokens: 50_000, window: 'minute' }], { mock: simulator.mock });
    try {
      const attacker = await tenant(server, 'attacker');
      const statuses = await simulator.all(
        Array.from({ length: 20 }, (_, n) => () => chat(server, attacker.key, prompt(n))),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 429)).toHaveLength(19);
    } finally {
      await server.stop();
    }
  });
});

describe.each(stores)('trace, workflow and agent budgets are per tenant, in $store (item 8)', ({ redis }) => {
  // A budget a single call spends: the next call on the same trace, workflow or agent is refused.
  const rules: BudgetRule[] = [
    { scope: 'trace', usd: 0.000_01, window: 'lifetime' },
    { scope: 'workflow', usd: 0.000_01, window: 'day' },
    { scope: 'agent', usd: 0.000_01, window: 'day' },
  ];

  it.each([
    ['trace_id', 'order-42'],
    ['workflow_name', 'nightly-report'],
    ['agent_id', 'support'],
  ])(
    'another tenant spending %s "%s" leaves this tenant’s untouched; the tenant’s own keys share it',
    async (field, value) => {
      const server = await serverWith(rules, { redis });
      try {
        const alice = await tenant(server, 'alice');
        const bob = await tenant(server, 'bob');
        const named = { [field]: value };
        expect((await chat(server, bob.key, 'Spend it.', named)).status).toBe(200);
        const refused = await chat(server, bob.key, 'Again.', named);
        expect(refused.status).toBe(402);
        expect((await jsonOf(refused)).error.message).toContain(`"${value}"`);

        expect((await chat(server, alice.key, 'Mine.', named)).status).toBe(200);
        // Alice's own trace is now spent, for Alice and for the keys she mints.
        const aliceKey = await api(server, '/v1/keys', { key: server.key, body: { scopes: ['chat', 'keys:create'] } });
        const team = await jsonOf(aliceKey);
        const bot = await jsonOf(await api(server, '/v1/keys', { key: team.key, body: { scopes: ['chat'] } }));
        expect((await chat(server, team.key, 'Team.', named)).status).toBe(200);
        expect((await chat(server, bot.key, 'Bot.', named)).status).toBe(402);
        expect((await chat(server, alice.key, 'Mine again.', named)).status).toBe(402);
      } finally {
        await server.stop();
      }
    },
  );
});

describe('key budgets and limits stop at the tenant: the admin key above the tenants is not their pool', () => {
  it('a tenant that spends its key budget leaves a sibling tenant minted by the same admin key untouched', async () => {
    const server = await serverWith([{ scope: 'key', usd: 0.001, window: 'day' }]);
    try {
      const alice = await tenant(server, 'alice');
      const bob = await tenant(server, 'bob');
      // 10,000 prompt tokens: $0.0015, past Alice's $0.001 a day.
      expect((await chat(server, alice.key, 'x'.repeat(40_000))).status).toBe(200);
      expect((await chat(server, alice.key, 'Again.')).status).toBe(402);
      expect((await chat(server, bob.key, 'Mine.')).status).toBe(200);
      // Within a tenant, the keys it mints still count against it.
      const team = await jsonOf(await api(server, '/v1/keys', { body: { scopes: ['chat', 'keys:create'] } }));
      const bot = await jsonOf(await api(server, '/v1/keys', { key: team.key, body: { scopes: ['chat'] } }));
      expect((await chat(server, bot.key, 'x'.repeat(40_000))).status).toBe(200);
      expect((await jsonOf(await chat(server, team.key, 'Team.'))).error.message).toContain(`"${team.id}"`);
    } finally {
      await server.stop();
    }
  });

  it('a tenant that uses up its request rate leaves a sibling tenant’s untouched', async () => {
    const server = await startTestServer({ requestsPerMinutePerKey: 3 });
    try {
      const alice = await tenant(server, 'alice');
      const bob = await tenant(server, 'bob');
      const statuses: number[] = [];
      for (let n = 0; n < 5; n++) statuses.push((await chat(server, alice.key, `Hi ${n}.`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect((await chat(server, bob.key, 'Mine.')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('budgets never forget a spent key (item 6)', () => {
  it('after another tenant’s calls on more new traces than the store tracks, a spent key stays refused', async () => {
    const server = await serverWith(
      [
        { scope: 'key', usd: 0.001, window: 'day' },
        { scope: 'trace', usd: 1, window: 'lifetime' },
      ],
      { maxTracked: 50 },
    );
    try {
      const alice = await tenant(server, 'alice');
      const bob = await tenant(server, 'bob');
      // 10,000 prompt tokens: $0.0015, past Alice's $0.001 a day.
      expect((await chat(server, alice.key, 'x'.repeat(40_000))).status).toBe(200);
      expect((await chat(server, alice.key, 'Again.')).status).toBe(402);
      for (let n = 0; n < 60; n++) {
        const answer = await api(server, '/v1/chat/completions', {
          key: bob.key,
          body: {
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: 'Hi.' }],
            max_tokens: 5,
            metadata: { trace_id: `bob-${n}` },
          },
        });
        expect(answer.status).toBe(200);
      }
      const after = await chat(server, alice.key, 'Forgotten yet?');
      expect(after.status).toBe(402);
      expect((await jsonOf(after)).error.code).toBe('insufficient_quota');
    } finally {
      await server.stop();
    }
  });
});

describe('a tenant naming more agents than the store tracks', () => {
  it('fills only its own part: another tenant’s new agent is still counted, not refused for room', async () => {
    const server = await serverWith([{ scope: 'agent', usd: 1, window: 'day' }], { maxTracked: 20 });
    try {
      const alice = await tenant(server, 'alice');
      const bob = await tenant(server, 'bob');
      for (let n = 0; n < 30; n++)
        expect((await chat(server, bob.key, 'Hi.', { agent_id: `bob-${n}` })).status).toBe(200);
      expect((await chat(server, alice.key, 'Mine.', { agent_id: 'support' })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('in process: what the memory store keeps when it is full (item 6)', () => {
  const ask = (metadata: Record<string, string>, tenant?: string) =>
    gatewayCall(metadata, tenant === undefined ? {} : { access: { keyId: `${tenant}-key`, tenant } });
  let gateway: ReturnType<typeof createGateway>;
  const gatewayCall = (metadata: Record<string, string>, options: object) =>
    gateway.createCompletion(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi.' }], max_tokens: 5, metadata },
      options,
    );

  it('a tenant flooding new traces forgets only its own: another tenant’s spent trace stays spent', async () => {
    gateway = createGateway({
      mock: true,
      budgets: { rules: [{ scope: 'trace', usd: 0.000_001, window: 'lifetime' }], maxTracked: 5 },
    });
    await ask({ trace_id: 'order-42' }, 'alice');
    await expect(ask({ trace_id: 'order-42' }, 'alice')).rejects.toMatchObject({ code: 'insufficient_quota' });
    for (let n = 0; n < 20; n++) await ask({ trace_id: `flood-${n}` }, 'bob');
    await expect(ask({ trace_id: 'order-42' }, 'alice')).rejects.toMatchObject({ code: 'insufficient_quota' });
    // Bob's own oldest traces were forgotten to make room: his first is spendable again.
    await expect(ask({ trace_id: 'flood-0' }, 'bob')).resolves.toBeTruthy();
  });

  it('a tenant’s new traces never push out its own spent agent’s budget', async () => {
    gateway = createGateway({
      mock: true,
      budgets: {
        rules: [
          { scope: 'agent', usd: 0.000_001, window: 'day' },
          { scope: 'trace', usd: 1, window: 'lifetime' },
        ],
        maxTracked: 5,
      },
    });
    await ask({ agent_id: 'support' }, 'alice');
    await expect(ask({ agent_id: 'support' }, 'alice')).rejects.toMatchObject({ code: 'insufficient_quota' });
    for (let n = 0; n < 20; n++) await ask({ trace_id: `busy-${n}` }, 'alice');
    await expect(ask({ agent_id: 'support' }, 'alice')).rejects.toMatchObject({ code: 'insufficient_quota' });
  });

  it('budgets it may not forget, past maxTracked: a 503 budgets_full, never a budget let go', async () => {
    gateway = createGateway({
      mock: true,
      budgets: { rules: [{ scope: 'agent', usd: 1, window: 'day' }], maxTracked: 3 },
    });
    for (const agent of ['a1', 'a2', 'a3']) await ask({ agent_id: agent });
    const refused = await ask({ agent_id: 'a4' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SwitchyardError);
    expect(refused).toMatchObject({ status: 503, code: 'budgets_full' });
    expect((refused as Error).message).toContain('Redis');
    // The agents counted already go on being counted.
    await expect(ask({ agent_id: 'a1' })).resolves.toBeTruthy();

    gateway = createGateway({
      mock: true,
      budgets: { rules: [{ scope: 'agent', usd: 1, window: 'day' }], maxTracked: 1, onStoreError: 'open' },
    });
    await ask({ agent_id: 'a1' });
    const open = await ask({ agent_id: 'a2' });
    expect(open.switchyard.warnings.map((warning) => warning.code)).toContain('budget_unchecked');
  });
});
