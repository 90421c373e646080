import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallQuery } from '../../src/records/call-query.ts';
import { type CallRecord, type CallStore, MemorySink, PostgresSink, SqliteSink } from '../../src/records/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { makeRecords } from './make-record.ts';

/**
 * The structured call query answers alike on the memory store, SQLite and a real PostgreSQL (a throwaway instance;
 * skipped, saying so, where PostgreSQL is not installed and CI is not set), and the answers are right: checked
 * against sums and percentiles computed here from the records.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: call queries on PostgreSQL (no PostgreSQL installed; CI installs it).');

const records: CallRecord[] = makeRecords(1_200).map((record, index) => ({
  ...record,
  metadata: { customer: `c${index % 3}`, api_key_id: `key_${index % 2}`, 'odd.key"\'': index % 5 === 0 ? 'y' : 'n' },
  provider: index % 4 === 0 ? 'anthropic' : 'openai',
}));
const memory = new MemorySink({ capacity: records.length });
const sqlite = new SqliteSink(':memory:');
let postgres: PostgresSink | undefined;
await memory.write(records);
await sqlite.write(records);

beforeAll(async () => {
  if (!server) return;
  postgres = new PostgresSink(server.url);
  for (let offset = 0; offset < records.length; offset += 400)
    await postgres.write(records.slice(offset, offset + 400));
}, 60_000);
afterAll(async () => {
  sqlite.close();
  await postgres?.close();
  await (server as ThrowawayPostgres | undefined)?.stop();
});

const QUERIES: Array<[string, CallQuery]> = [
  ['rows, newest first', { limit: 25 }],
  ['rows of one agent, by latency', { filter: { agent_id: 'agent-1' }, order_by: [{ field: 'latency_ms' }] }],
  ['rows by cost, unknown prices last', { order_by: [{ field: 'cost_usd', direction: 'desc' }], limit: 1000 }],
  ['groups by agent with every aggregate', { group_by: ['agent_id'], aggregates: everyAggregate('latency_ms') }],
  [
    'cost percentiles per workflow and status',
    { group_by: ['workflow_name', 'status'], aggregates: everyAggregate('cost_usd') },
  ],
  [
    'tokens per day, busiest first',
    {
      group_by: ['day'],
      aggregates: [
        { fn: 'sum', field: 'prompt_tokens' },
        { fn: 'avg', field: 'completion_tokens' },
      ],
      order_by: [{ field: 'sum_prompt_tokens', direction: 'desc' }],
      limit: 7,
    },
  ],
  [
    'totals without groups',
    { aggregates: [{ fn: 'count' }, { fn: 'p90', field: 'latency_ms' }, { fn: 'sum', field: 'cost_usd' }] },
  ],
  [
    'nothing matches: one row of totals',
    { filter: { agent_id: 'nobody' }, aggregates: [{ fn: 'count' }, { fn: 'p50', field: 'latency_ms' }] },
  ],
  [
    'every filter at once',
    {
      filter: {
        agent_id: ['agent-0', 'agent-2'],
        workflow_name: ['workflow-0', 'workflow-1'],
        model: 'gpt-4o-2024-11-20',
        provider: 'openai',
        status: 'ok',
        dialect: 'chat',
        since: '2026-01-03',
        until: '2026-01-20T00:00:00Z',
        min_cost_usd: 0.0001,
        max_cost_usd: 0.0002,
        min_latency_ms: 60,
        max_latency_ms: 400,
        metadata: { customer: 'c1' },
      },
      group_by: ['agent_id', 'workflow_name'],
    },
  ],
  [
    'first and last call per agent, latest first',
    {
      group_by: ['agent_id'],
      aggregates: [
        { fn: 'min', field: 'created_at' },
        { fn: 'max', field: 'created_at' },
      ],
      order_by: [{ field: 'max_created_at', direction: 'desc' }],
    },
  ],
  [
    'metadata keys with dots and quotes are keys',
    { filter: { metadata: { 'odd.key"\'': 'y' } }, aggregates: [{ fn: 'count' }] },
  ],
];

function everyAggregate(field: 'latency_ms' | 'cost_usd'): CallQuery['aggregates'] {
  return (['count', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p99'] as const).map((fn) => ({ fn, field }));
}

describe('the same query on every store', () => {
  const stores = (): Array<[string, CallStore]> => [
    ['SQLite', sqlite],
    ...(postgres ? [['PostgreSQL', postgres] as [string, CallStore]] : []),
  ];

  it.each(QUERIES)('%s', async (_name, query) => {
    const expected = await memory.queryCalls(query);
    expect(expected.data.length).toBeGreaterThan(0);
    for (const [name, store] of stores()) expect(await store.queryCalls!(query), name).toEqual(expected);
  });
});

describe('the first and last call of a group', () => {
  it.each([
    ['memory', memory],
    ['SQLite', sqlite],
  ] as const)('%s: min and max of created_at are its times; other aggregates of it are refused', async (_n, store) => {
    const mine = records.filter((record) => record.agent_id === 'agent-2').map((record) => record.created_at);
    const { data } = await store.queryCalls({
      filter: { agent_id: 'agent-2' },
      aggregates: [
        { fn: 'min', field: 'created_at' },
        { fn: 'max', field: 'created_at' },
      ],
    });
    expect(data).toEqual([{ min_created_at: mine.sort()[0], max_created_at: mine.at(-1) }]);
    await expect(store.queryCalls({ aggregates: [{ fn: 'sum', field: 'created_at' }] })).rejects.toThrow(
      /created_at is aggregated by min or max only/,
    );
  });
});

describe('the answers are right', () => {
  const latencies = (agent: string) =>
    records
      .filter((record) => record.agent_id === agent)
      .map((record) => record.latency_ms)
      .sort((a, b) => a - b);

  it.each([
    ['memory', memory],
    ['SQLite', sqlite],
  ] as const)('%s: counts, sums and interpolated percentiles', async (_name, store) => {
    const { data } = await store.queryCalls({
      filter: { agent_id: 'agent-3' },
      group_by: ['agent_id'],
      aggregates: [{ fn: 'count' }, { fn: 'sum', field: 'latency_ms' }, { fn: 'p90', field: 'latency_ms' }],
    });
    const values = latencies('agent-3');
    const position = 0.9 * (values.length - 1);
    const low = Math.floor(position);
    const p90 = values[low]! + (values[low + 1]! - values[low]!) * (position - low);
    expect(data).toEqual([
      {
        agent_id: 'agent-3',
        count: values.length,
        sum_latency_ms: values.reduce((a, b) => a + b, 0),
        p90_latency_ms: Math.round(p90 * 1e6) / 1e6,
      },
    ]);
  });

  it('PostgreSQL agrees on percentiles it computes itself (percentile_cont)', async ({ skip }) => {
    if (!postgres) skip('no PostgreSQL');
    const query: CallQuery = { group_by: ['agent_id'], aggregates: [{ fn: 'p99', field: 'latency_ms' }] };
    expect(await postgres!.queryCalls(query)).toEqual(await sqlite.queryCalls(query));
  });

  it('has_more says the limit cut the rows', async () => {
    expect((await sqlite.queryCalls({ limit: 5 })).has_more).toBe(true);
    const all = await sqlite.queryCalls({ group_by: ['status'] });
    expect(all).toMatchObject({ has_more: false, data: [{ status: 'error' }, { status: 'ok' }] });
  });
});
