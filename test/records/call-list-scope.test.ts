import { describe, expect, it } from 'vitest';
import { readableCallList } from '../../src/access/reads.ts';
import { MemorySink, SqliteSink } from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

/**
 * A reader's scope (the keys of its tenant, or under it) is not the caller's `api_key_ids` filter: a tenant whose
 * keys, revoked ones included, number past the filter's 10,000 still lists its calls (it was refused with a 400 on
 * `api_key_ids`), and a caller's own filter still narrows within the scope, never widens it.
 */
const many = (count: number) => Array.from({ length: count }, (_, n) => `key_revoked_${n}`);

describe('a list of calls within a scope', () => {
  for (const make of [() => new MemorySink(), () => new SqliteSink(':memory:')]) {
    const name = make().constructor.name;
    it(`${name}: a scope past 10,000 keys lists its calls; a caller's filter narrows within it`, async () => {
      const store = make();
      const [a, b, c] = ['key_a', 'key_b', 'key_c'].map((key, n) =>
        makeRecord({ agent_id: 'agent', metadata: { api_key_id: key }, createdAt: Date.UTC(2026, 0, 1, n) }),
      );
      await store.write([a!, b!, c!]);
      const wide = await store.list({}, { scope: { api_key_ids: ['key_a', 'key_b', ...many(12_000)] } });
      expect(wide.data.map((record) => record.id)).toEqual([b!.id, a!.id]);
      const both = await store.list(
        { api_key_ids: ['key_b', 'key_c'] },
        { scope: { api_key_ids: ['key_a', 'key_b'] } },
      );
      expect(both.data.map((record) => record.id)).toEqual([b!.id]);
      const agents = await store.list({}, { scope: { agent_ids: ['someone else'] } });
      expect(agents.data).toEqual([]);
      await expect(store.list({ api_key_ids: many(10_001) })).rejects.toThrow(/at most 10000 key ids/);
    });
  }
});

describe('readableCallList', () => {
  it("puts an agent-limited key's one agent in the scope too (a store ignoring filters fails closed)", async () => {
    const lookups = { descendants: async () => [], tenantKeys: async () => ['key_tenant', 'key_reader'] };
    const reader = {
      id: 'key_reader',
      scopes: ['calls:read' as const],
      allowed_agents: ['support', 'billing'],
      ancestors: ['key_tenant'],
    };
    const { query, scope } = await readableCallList(reader, { agent_id: 'billing' }, lookups);
    expect(query).toEqual({ agent_id: 'billing' });
    expect(scope).toEqual({ api_key_ids: ['key_tenant', 'key_reader'], agent_ids: ['billing'] });
  });

  it("gives a tenant's keys as the scope, apart from the caller's query", async () => {
    const tenantKeys = ['key_tenant', 'key_reader', ...many(12_000)];
    const lookups = { descendants: async () => [], tenantKeys: async () => tenantKeys };
    const reader = {
      id: 'key_reader',
      scopes: ['calls:read' as const],
      allowed_agents: null,
      ancestors: ['key_tenant'],
    };
    const { query, scope } = await readableCallList(reader, { agent_id: 'x' }, lookups);
    expect(query).toEqual({ agent_id: 'x' });
    expect(scope).toEqual({ api_key_ids: tenantKeys });
  });
});
