import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';
import { cursorOfPage, idsInPage, longConversation, seedLargeCalls, tenantKey } from './large-calls.ts';
import { chatProbe, duringAttack, expectNotStalled } from './other-tenant.ts';

/**
 * One tenant reading in bulk (its pages of large calls, a key's own calls among everyone's, a sample of its calls
 * copied into an experiment) while another tenant makes calls: the other tenant is answered as usual, and what one
 * request reads is bounded. Records of ~1.1 MB each (a long conversation), 40 of a tenant: about 45 MB.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: bulk reads on PostgreSQL (not installed; CI installs it).');
afterAll(() => postgres?.stop());
const stores = [
  { name: 'SQLite', database: undefined },
  ...(postgres ? [{ name: 'PostgreSQL', database: postgres.url }] : []),
];

/** The most a page of `GET /v1/calls` holds of record text (docs/serve.md), with room for one record's JSON. */
const PAGE_BYTES = 4 * 1024 * 1024;

describe.each(stores)('on $name', ({ database }) => {
  let test: TestServer;
  /** The attacker (reads its agent's calls), the victim (only calls), and a key that reads only its own calls. */
  const keys = { reader: '', victim: '', own: '', ownId: '' };
  let readerCalls: string[] = [];
  beforeAll(async () => {
    test = await startTestServer(database ? { database } : {});
    keys.reader = (await tenantKey(test, 'reader', { scopes: ['chat', 'calls:read'], allowed_agents: ['bulk'] })).key;
    keys.victim = (await tenantKey(test, 'victim', { scopes: ['chat'] })).key;
    const own = await tenantKey(test, 'own', { scopes: ['chat', 'calls:read:own'] });
    keys.own = own.key;
    keys.ownId = own.id;
    const readerId = (await tenantKey(test, 'writer', { scopes: ['chat'] })).id;
    readerCalls = await seedLargeCalls(test, { count: 40, keyId: readerId, agent: 'bulk' });
  }, 120_000);
  afterAll(() => test?.stop());

  it('GET /v1/calls pages large records by bytes too: each call once, the other tenant answered', async () => {
    /** Walks every page with the largest limit, keeping each page's size and ids. */
    const walk = async () => {
      const pages: Array<{ bytes: number; ids: string[] }> = [];
      let cursor: string | null = null;
      do {
        const query = `/v1/calls?agent_id=bulk&limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
        const response = await api(test, query, { key: keys.reader });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`${response.status}: ${text.slice(0, 300)}`);
        pages.push({ bytes: Buffer.byteLength(text), ids: idsInPage(text) });
        cursor = cursorOfPage(text);
      } while (cursor);
      return pages;
    };
    const { result, latency } = await duringAttack({ probe: chatProbe(test.url, keys.victim) }, () =>
      Promise.all([walk(), walk()]),
    );
    expectNotStalled(latency);
    for (const pages of result) {
      expect(pages.flatMap((page) => page.ids)).toEqual(readerCalls);
      for (const page of pages) expect(page.bytes).toBeLessThan(PAGE_BYTES + 3 * 1024 * 1024);
    }
  }, 120_000);

  it('a key that reads its own calls finds them by index: no query of it reads everyone’s records', async () => {
    // Everyone else's records: the reader's 40, and 40 more of another tenant.
    const stranger = (await tenantKey(test, 'stranger', { scopes: ['chat'] })).id;
    await seedLargeCalls(test, { count: 40, keyId: stranger, agent: 'stranger' });
    const client = test.openai(keys.own);
    for (const content of ['first', 'second'])
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
    const queries = async () => {
      for (let round = 0; round < 2; round++) {
        const listed = await jsonOf(await api(test, '/v1/calls?limit=10', { key: keys.own }));
        expect(listed.data.map((call: any) => call.metadata.api_key_id)).toEqual([keys.ownId, keys.ownId]);
        const queried = await api(test, '/v1/calls/query', { key: keys.own, body: { aggregates: [{ fn: 'count' }] } });
        expect((await jsonOf(queried)).data).toEqual([{ count: 2 }]);
      }
    };
    const { latency } = await duringAttack({ probe: chatProbe(test.url, keys.victim) }, () =>
      Promise.all(Array.from({ length: 24 }, queries)),
    );
    expectNotStalled(latency);
  }, 120_000);

  it('from_calls samples large calls without reading them whole, and keeps the experiment small', async () => {
    // The reader's own calls for its agent: two of an ordinary size, among the 40 large ones.
    const client = test.openai(keys.reader);
    for (const content of ['small one', 'small two'])
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
        metadata: { agent_id: 'bulk' },
      });
    const create = async () => {
      const response = await api(test, '/v1/experiments', {
        key: keys.reader,
        body: {
          agent_id: 'bulk',
          versions: [{ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }] }],
          inputs: [{ from_calls: { limit: 100 } }],
        },
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).toBe(201);
      return { bytes: Buffer.byteLength(text), experiment: JSON.parse(text) };
    };
    const { result, latency } = await duringAttack({ probe: chatProbe(test.url, keys.victim) }, () =>
      Promise.all([create(), create(), create()]),
    );
    expectNotStalled(latency);
    for (const { bytes, experiment } of result) {
      const copied = experiment.inputs.map((input: any) => input.messages.map((m: any) => m.content).join());
      expect(copied.sort()).toEqual(['small one', 'small two']);
      expect(bytes).toBeLessThan(64 * 1024);
    }
  }, 120_000);
});

describe('a call refused before any provider is called', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer();
  });
  afterAll(() => test?.stop());

  it('keeps a bounded excerpt of its prompt, not the prompt', async () => {
    const messages = longConversation(15_000);
    const messages2 = longConversation(5_000);
    const refusals = [
      { model: 'gpt-4o-mini', messages, temperature: 99 },
      { model: 'no-such-model', messages },
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(3_000_000) }], top_p: 'high' },
      { model: 'gpt-4o-mini', messages: longConversation(2_000), input: { doc: 'y'.repeat(1e6), messages2 }, n: -1 },
      // Longer than every candidate's context window: skipped, never sent.
      { model: 'gpt-4o-mini', messages },
    ];
    for (const body of refusals) {
      const response = await api(test, '/v1/chat/completions', { body });
      expect(response.status).toBeGreaterThanOrEqual(400);
      const callId = response.headers.get('x-switchyard-call-id') ?? (await jsonOf(response)).error.call_id;
      expect(callId, 'the refusal names its call').toBeTruthy();
      const record = await api(test, `/v1/calls/${callId}`);
      const text = await record.text();
      expect(record.status).toBe(200);
      expect(Buffer.byteLength(text)).toBeLessThan(32 * 1024);
      const stored = JSON.parse(text);
      expect(stored.status).toBe('error');
      expect(stored.input_messages[0].role).toBe('user');
      expect(stored.warnings.map((warning: any) => warning.code)).toContain('record_truncated');
    }
  }, 60_000);
});
