import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnnotationStore, NormalizedAnnotationQuery, StoredAnnotation } from '../../src/annotations/index.ts';
import { openStores, type Stores } from '../../src/stores/open-stores.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * Each annotation store (memory, SQLite, a real PostgreSQL: skipped, saying so, where PostgreSQL is not installed and
 * CI is not set) answers the same queries with the rows a plain filter written here picks, newest first, in pages.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: annotation store on PostgreSQL (no PostgreSQL installed; CI installs it).');

const start = Date.UTC(2026, 2, 1);
const rows: StoredAnnotation[] = Array.from({ length: 60 }, (_, index) => ({
  // Zero-padded: ids sort as their numbers.
  id: `ann_${String(index).padStart(4, '0')}`,
  target: index % 10 === 9 ? { experiment_id: 'exp-1', cell_id: `cell-${index}` } : { call_id: `call-${index % 7}` },
  agent_id: index % 5 === 0 ? null : `agent-${index % 3}`,
  key_path: index % 4 === 0 ? 'items.0.price' : null,
  text: index % 2 === 0 ? `note ${index} 'quoted' ; DROP TABLE annotations; --` : null,
  metric:
    index % 2 === 1 || index % 3 === 0 ? { name: index % 3 === 0 ? 'accuracy' : 'rating', value: index / 7 } : null,
  author: index % 6 === 0 ? null : 'key_author',
  created_at: new Date(start + index * 60_000).toISOString(),
  call_api_key_id: index % 4 === 1 ? 'key_a' : index % 4 === 2 ? 'key_b' : null,
}));

const memory = openStores({ engine: 'memory' }).annotations;
const sqliteStores = openStores({ engine: 'sqlite', path: ':memory:' });
const sqlite = sqliteStores.annotations;
let postgresStores: Stores | undefined;
const stores: Array<[string, () => AnnotationStore]> = [
  ['memory', () => memory],
  ['SQLite', () => sqlite],
  ...(server ? [['PostgreSQL', () => postgresStores!.annotations] as [string, () => AnnotationStore]] : []),
];

beforeAll(async () => {
  if (server) postgresStores = openStores({ engine: 'postgres', connection: server.url });
  // In two batches, in order: the second is newer.
  for (const [, store] of stores) {
    await store().insert(rows.slice(0, 30));
    await store().insert(rows.slice(30));
  }
}, 60_000);
afterAll(async () => {
  await sqliteStores.close();
  await postgresStores?.close();
  await (server as ThrowawayPostgres | undefined)?.stop();
});

const QUERIES: Array<[string, Partial<NormalizedAnnotationQuery>]> = [
  ['everything', {}],
  ['one call', { call_id: 'call-3' }],
  ['one agent', { agent_id: 'agent-1' }],
  ['one experiment', { experiment_id: 'exp-1' }],
  ['one metric', { metric: 'accuracy' }],
  ['a time window', { since: new Date(start + 10 * 60_000).toISOString(), until: rows[20]!.created_at }],
  ['scoped to agents', { scope: { agent_ids: ['agent-0', 'agent-2'] } }],
  ['scoped to keys', { scope: { api_key_ids: ['key_a'] } }],
  ['scoped to nothing', { scope: { agent_ids: [] } }],
  ['an injection as a value', { call_id: "call-1' OR '1'='1" }],
];

/** The rows a query should return, picked here without the stores' code. */
function expected(query: Partial<NormalizedAnnotationQuery>): string[] {
  return rows
    .filter((row) => {
      const target = row.target as Record<string, string>;
      const scope = query.scope ?? {};
      if (scope.agent_ids && !scope.agent_ids.includes(row.agent_id as string)) return false;
      if (scope.api_key_ids && !scope.api_key_ids.includes(row.call_api_key_id as string)) return false;
      if (query.call_id && target.call_id !== query.call_id) return false;
      if (query.agent_id && row.agent_id !== query.agent_id) return false;
      if (query.experiment_id && target.experiment_id !== query.experiment_id) return false;
      if (query.metric && row.metric?.name !== query.metric) return false;
      if (query.since && row.created_at < query.since) return false;
      return !(query.until && row.created_at >= query.until);
    })
    .map((row) => row.id)
    .reverse();
}

describe.each(stores)('%s', (_, store) => {
  it.each(QUERIES)('%s', async (_name, query) => {
    const page = await store().list({ limit: 1000, scope: {}, ...query });
    expect(page.data.map((row) => row.id)).toEqual(expected(query));
    expect(page.next_cursor).toBeNull();
  });

  it('returns every field as written, without the key of the annotated call', async () => {
    const { data } = await store().list({ limit: 1000, scope: {} });
    const byId = new Map(data.map((row) => [row.id, row]));
    for (const { call_api_key_id: _, ...row } of rows) expect(byId.get(row.id)).toEqual(row);
  });

  it('pages newest first with next_cursor, each row once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const answer = await store().list({ limit: 7, scope: {}, ...(cursor ? { cursor } : {}) });
      seen.push(...answer.data.map((row) => row.id));
      if (answer.next_cursor === null) break;
      cursor = answer.next_cursor;
    }
    expect(seen).toEqual(expected({}));
  });
});

describe.each(stores)('%s, a batch', (_, store) => {
  it('is stored all or none: a row the store refuses (a duplicate id) leaves none of its batch', async () => {
    const fresh = (id: string): StoredAnnotation => ({ ...rows[0]!, id, target: { call_id: 'batch-call' } });
    await expect(store().insert([fresh('ann_batch_1'), fresh('ann_0001')])).rejects.toThrow();
    expect((await store().list({ limit: 10, scope: {}, call_id: 'batch-call' })).data).toEqual([]);
  });
});
