import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_PAGE_BYTES } from '../../src/records/call-store-queries.ts';
import { type CallPage, type CallRecord, type CallStore, MemorySink, SqliteSink } from '../../src/records/index.ts';
import { makeRecord, makeRecords } from './make-record.ts';

/** Newest first; ties on `created_at` broken by id. */
function newestFirst(a: CallRecord, b: CallRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

const directory = await mkdtemp(join(tmpdir(), 'switchyard-store-'));
const sqlite = new SqliteSink(join(directory, 'db', 'calls.sqlite'));
afterAll(async () => {
  sqlite.close();
  await rm(directory, { recursive: true, force: true });
});

const ROWS = 5_000;
const records = makeRecords(ROWS);
const memory = new MemorySink({ capacity: ROWS });
await memory.write(records);

/** Pages through a whole query, checking no row is skipped or repeated. */
async function allPages(
  store: CallStore,
  query: Parameters<CallStore['list']>[0],
  pageSize: number,
): Promise<CallRecord[]> {
  const rows: CallRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.list({ ...query, limit: pageSize, cursor });
    expect(page.data.length).toBeLessThanOrEqual(pageSize);
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

describe('SqliteSink', () => {
  it(`inserts ${ROWS} records in batches quickly`, async () => {
    const started = performance.now();
    for (let offset = 0; offset < records.length; offset += 200)
      await sqlite.write(records.slice(offset, offset + 200));
    const elapsed = performance.now() - started;
    // One transaction per batch: thousands of rows a second even on a slow shared runner.
    expect(elapsed).toBeLessThan(5_000);
    expect(sqlite.query('SELECT count(*) AS n FROM calls')).toEqual([{ n: ROWS }]);
  });

  it('runs in WAL mode with synchronous=NORMAL and its filtered queries use the partial indexes', () => {
    expect(sqlite.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(sqlite.query('PRAGMA synchronous')).toEqual([{ synchronous: 1 }]);
    const indexes = sqlite.query('PRAGMA index_list(calls)').map((row) => row.name);
    expect(indexes).toEqual(
      expect.arrayContaining([
        'calls_with_agent_id',
        'calls_with_trace_id',
        'calls_with_workflow_name',
        'calls_by_created_at',
      ]),
    );
    for (const field of ['agent_id', 'trace_id', 'workflow_name']) {
      const plan = sqlite.query(
        `EXPLAIN QUERY PLAN SELECT record FROM calls WHERE ${field} = ? AND created_at >= ? ORDER BY created_at ` +
          `DESC, id DESC LIMIT 5`,
        'x',
        '2026-01-01',
      );
      expect(JSON.stringify(plan), field).toContain(`calls_with_${field}`);
    }
    const byTrace = sqlite.query(
      'EXPLAIN QUERY PLAN SELECT record FROM calls WHERE trace_id = ? ORDER BY created_at ASC, id ASC',
      'x',
    );
    expect(JSON.stringify(byTrace)).toContain('calls_with_trace_id');
  });

  it('migrates a database made by the first version: partial indexes, nullable cost, old rows kept', async () => {
    const path = join(directory, 'old.sqlite');
    const { DatabaseSync } = await import('node:sqlite');
    const old = new DatabaseSync(path);
    old.exec(
      'CREATE TABLE calls (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, agent_id TEXT, trace_id TEXT, ' +
        'workflow_name TEXT, deployment_id TEXT, requested_model TEXT NOT NULL, model TEXT, provider TEXT, status ' +
        'TEXT NOT NULL, stream INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, ' +
        'reasoning_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, latency_ms REAL ' +
        'NOT NULL, record TEXT NOT NULL)',
    );
    old.exec(
      'CREATE INDEX calls_by_agent_id ON calls (agent_id, created_at, id); CREATE INDEX calls_by_trace_id ON calls ' +
        '(trace_id, created_at, id); CREATE INDEX calls_by_workflow_name ON calls (workflow_name, created_at, id)',
    );
    const before = makeRecord({
      agent_id: 'before',
      createdAt: Date.UTC(2025, 0, 1),
      metadata: { api_key_id: 'key_before' },
    });
    old
      .prepare('INSERT INTO calls VALUES (?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?, 0, 100, 20, 0, 0, ?, ?, ?)')
      .run(
        before.id,
        before.created_at,
        'before',
        before.requested_model,
        before.model,
        before.provider,
        'ok',
        0.00045,
        150,
        JSON.stringify(before),
      );
    old.close();
    const store = new SqliteSink(path);
    const record = makeRecord({ agent_id: 'kept' });
    const unpriced = makeRecord({ agent_id: 'unpriced', cost_usd: null, cost: null });
    await store.write([record, unpriced]);
    expect((await store.list({ agent_id: 'before' })).data).toEqual([before]);
    expect((await store.list({ agent_id: 'unpriced' })).data).toEqual([unpriced]);
    expect(store.query("SELECT cost_usd FROM calls WHERE agent_id = 'unpriced'")).toEqual([{ cost_usd: null }]);
    expect(store.query("SELECT dialect FROM calls WHERE agent_id = 'before'")).toEqual([{ dialect: 'chat' }]);
    const agents = await store.agents();
    expect(agents.find((agent) => agent.agent_id === 'unpriced')).toMatchObject({ cost_usd: 0, unpriced_calls: 1 });
    const indexes = store
      .query('PRAGMA index_list(calls)')
      .map((row) => row.name)
      .sort();
    expect(indexes.filter((name) => String(name).startsWith('calls_'))).toEqual([
      'calls_by_created_at',
      'calls_with_agent_id',
      'calls_with_api_key_id',
      'calls_with_trace_id',
      'calls_with_workflow_name',
    ]);
    expect((await store.list({ agent_id: 'kept' })).data).toEqual([record]);
    // The key's column is filled from the old rows' records.
    expect((await store.list({ api_key_ids: ['key_before'] })).data).toEqual([before]);
    store.close();
  });

  it('adds api_key_id to a table without it, filled from the records, and finds a key’s calls by it', async () => {
    const path = join(directory, 'before-key-ids.sqlite');
    const first = new SqliteSink(path);
    const mine = makeRecord({ agent_id: 'a', metadata: { api_key_id: 'key_mine', note: '\u0000 \ud800' } });
    const odd = makeRecord({ agent_id: 'b', metadata: { api_key_id: 'key_odd' }, input: { text: 'nul \u0000' } });
    const theirs = makeRecord({ agent_id: 'c', metadata: { api_key_id: 'key_theirs' } });
    const none = makeRecord({ agent_id: 'd' });
    await first.write([mine, odd, theirs, none]);
    // As an earlier version left it: no column, no index.
    first.query('DROP INDEX calls_with_api_key_id');
    first.query('ALTER TABLE calls DROP COLUMN api_key_id');
    first.close();
    const store = new SqliteSink(path);
    expect(store.query('SELECT agent_id, api_key_id FROM calls ORDER BY agent_id')).toEqual([
      { agent_id: 'a', api_key_id: 'key_mine' },
      { agent_id: 'b', api_key_id: 'key_odd' },
      { agent_id: 'c', api_key_id: 'key_theirs' },
      { agent_id: 'd', api_key_id: null },
    ]);
    expect((await store.list({ api_key_ids: ['key_mine', 'key_odd'] })).data).toEqual([odd, mine].sort(newestFirst));
    const plan = store.query(
      'EXPLAIN QUERY PLAN SELECT id FROM calls WHERE api_key_id IN (SELECT value FROM json_each(?)) ' +
        'ORDER BY created_at DESC, id DESC LIMIT 5',
      JSON.stringify(['key_mine']),
    );
    expect(plan.map((row) => String(row.detail)).join('; ')).toContain('calls_with_api_key_id');
    store.close();
  });

  it('adds the dialect column to a table that has the cost columns but not it', async () => {
    const path = join(directory, 'before-dialects.sqlite');
    const { DatabaseSync } = await import('node:sqlite');
    const old = new DatabaseSync(path);
    old.exec(
      'CREATE TABLE calls (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, agent_id TEXT, trace_id TEXT, ' +
        'workflow_name TEXT, deployment_id TEXT, requested_model TEXT NOT NULL, model TEXT, provider TEXT, status ' +
        'TEXT NOT NULL, stream INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, ' +
        'reasoning_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL ' +
        'DEFAULT 0, cost_usd REAL, cost_input_usd REAL, cost_cache_read_usd REAL, cost_cache_write_usd REAL, ' +
        'cost_output_usd REAL, cost_reasoning_usd REAL, latency_ms REAL NOT NULL, record TEXT NOT NULL)',
    );
    old.close();
    const store = new SqliteSink(path);
    const record = makeRecord({ agent_id: 'via-messages', dialect: 'messages' });
    await store.write([record]);
    expect((await store.list({ dialect: 'messages' })).data).toEqual([record]);
    store.close();
  });

  it('keeps the whole record: what is read back equals what was written', async () => {
    const record = makeRecord({
      metadata: { customer: 'acme' },
      warnings: [{ code: 'unsupported_parameter', param: 'seed', message: 'dropped' }],
    });
    const store = new SqliteSink(':memory:');
    await store.write([record]);
    await store.write([record]); // A batch written twice does not duplicate rows.
    expect((await store.list()).data).toEqual([record]);
    store.close();
  });

  it('stores the rows of a batch that SQLite accepts, and refuses the others by name', async () => {
    const store = new SqliteSink(':memory:');
    const broken = { ...makeRecord(), requested_model: null } as unknown as CallRecord;
    await expect(store.write([makeRecord(), broken])).rejects.toThrow(
      /1 of 2 call records could not be stored: NOT NULL constraint failed: calls.requested_model/,
    );
    expect(store.query('SELECT count(*) AS n FROM calls')).toEqual([{ n: 1 }]);
    store.close();
  });
});

describe.each([
  ['MemorySink', memory],
  ['SqliteSink', sqlite],
] as Array<[string, CallStore]>)('%s queries', (_name, store) => {
  const newestFirst = [...records].sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );

  it('lists newest first, 50 by default, at most 1000', async () => {
    const page = await store.list();
    expect(page.data).toEqual(newestFirst.slice(0, 50));
    expect(page.next_cursor).toEqual(expect.any(String));
    expect((await store.list({ limit: 5_000 })).data).toHaveLength(1000);
  });

  it('pages with a stable cursor: every row exactly once, in order', async () => {
    const rows = await allPages(store, {}, 333);
    expect(rows.map((row) => row.id)).toEqual(newestFirst.map((row) => row.id));
  });

  it('filters by agent, trace, workflow and time window', async () => {
    const since = '2026-01-05T00:00:00.000Z';
    const until = '2026-01-10T00:00:00.000Z';
    const expected = newestFirst.filter(
      (row) =>
        row.agent_id === 'agent-1' &&
        row.workflow_name === 'workflow-2' &&
        row.created_at >= since &&
        row.created_at < until,
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(
      await allPages(store, { agent_id: 'agent-1', workflow_name: 'workflow-2', since, until: new Date(until) }, 7),
    ).toEqual(expected);
    expect((await store.list({ trace_id: 'trace-7', limit: 1000 })).data).toEqual(
      newestFirst.filter((row) => row.trace_id === 'trace-7'),
    );
    expect(await store.list({ agent_id: 'nobody' })).toEqual({ data: [], next_cursor: null });
  });

  it('rejects a cursor or limit it cannot use', async () => {
    await expect(store.list({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'invalid_cursor',
      param: 'cursor',
    });
    await expect(store.list({ limit: 0 })).rejects.toMatchObject({ param: 'limit' });
    await expect(store.list({ since: 'yesterday-ish' })).rejects.toMatchObject({ param: 'since' });
  });

  it('summarises a workflow by trace', async () => {
    const calls = records
      .filter((row) => row.trace_id === 'trace-3')
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
    const summary = (await store.workflow('trace-3'))!;
    expect(summary.calls).toEqual(calls);
    expect(summary.workflow_name).toBe(calls.find((call) => call.workflow_name)!.workflow_name);
    expect(summary.agents.reduce((total, agent) => total + agent.calls, 0)).toBe(calls.length);
    expect(summary.agents[0]!.agent_id).toBe(calls[0]!.agent_id);
    expect(summary.cost_usd).toBeCloseTo(
      calls.reduce((total, call) => total + (call.cost_usd ?? 0), 0),
      9,
    );
    const last = Math.max(...calls.map((call) => Date.parse(call.created_at) + call.latency_ms));
    expect(summary.duration_ms).toBe(last - Date.parse(calls[0]!.created_at));
    expect(await store.workflow('no-such-trace')).toBeNull();
  });

  it('adds up the daily cost per workflow over a window of UTC days', async () => {
    const now = new Date('2026-01-20T15:00:00Z');
    const rows = await store.dailyCost({ days: 7, now });
    expect(rows[0]!.day).toBe('2026-01-14');
    expect(new Set(rows.map((row) => row.day)).size).toBe(7);
    const day = records.filter((row) => row.created_at.startsWith('2026-01-16') && row.workflow_name === 'workflow-0');
    expect(rows.find((row) => row.day === '2026-01-16' && row.workflow_name === 'workflow-0')).toEqual({
      day: '2026-01-16',
      workflow_name: 'workflow-0',
      calls: day.length,
      cost_usd: Math.round(day.reduce((sum, row) => sum + (row.cost_usd ?? 0), 0) * 1e9) / 1e9,
      unpriced_calls: day.filter((row) => row.cost_usd === null).length,
    });
    const one = await store.dailyCost({ workflow_name: 'workflow-1', days: 30, now });
    expect(one.every((row) => row.workflow_name === 'workflow-1')).toBe(true);
    expect(one.reduce((total, row) => total + row.calls, 0)).toBe(
      records.filter(
        (row) => row.workflow_name === 'workflow-1' && row.created_at >= '2025-12-22' && row.created_at < '2026-01-21',
      ).length,
    );
  });

  it('totals each agent, highest cost first', async () => {
    const agents = await store.agents();
    expect(agents.map((agent) => agent.agent_id).sort()).toEqual(
      ['agent-0', 'agent-1', 'agent-2', 'agent-3', null].sort(),
    );
    const rows = records.filter((row) => row.agent_id === 'agent-2');
    expect(agents.find((agent) => agent.agent_id === 'agent-2')).toEqual({
      agent_id: 'agent-2',
      calls: rows.length,
      errors: rows.filter((row) => row.status === 'error').length,
      prompt_tokens: rows.reduce((sum, row) => sum + row.usage.prompt_tokens, 0),
      completion_tokens: rows.reduce((sum, row) => sum + row.usage.completion_tokens, 0),
      reasoning_tokens: rows.reduce((sum, row) => sum + row.usage.reasoning_tokens, 0),
      cost_usd: Math.round(rows.reduce((sum, row) => sum + (row.cost_usd ?? 0), 0) * 1e9) / 1e9,
      unpriced_calls: rows.filter((row) => row.cost_usd === null).length,
      last_call_at: rows
        .map((row) => row.created_at)
        .sort()
        .at(-1),
    });
    for (let index = 1; index < agents.length; index++)
      expect(agents[index - 1]!.cost_usd).toBeGreaterThanOrEqual(agents[index]!.cost_usd);
  });
});

describe('memory and SQLite answer identically', () => {
  it('for every query', async () => {
    const now = new Date('2026-01-25T00:00:00Z');
    const queries: Array<(store: CallStore) => Promise<unknown>> = [
      (store) => allPages(store, {}, 1000),
      (store) => allPages(store, { agent_id: 'agent-3', since: '2026-01-03' }, 17),
      (store) => store.list({ workflow_name: 'workflow-1', until: '2026-01-08', limit: 100 }),
      (store) => allPages(store, { dialect: 'messages', agent_id: 'agent-1' }, 33),
      (store) => store.get!(records[1234]!.id),
      (store) => store.get!('no-such-id'),
      (store) => store.workflow('trace-42'),
      (store) => store.dailyCost({ now }),
      (store) => store.dailyCost({ days: 3, workflow_name: 'workflow-2', now }),
      (store) => store.agents(),
    ];
    for (const query of queries) expect(await query(sqlite)).toEqual(await query(memory));
  });
});

describe('pages of large records', () => {
  it('stop before MAX_PAGE_BYTES past their first call; the cursor goes on; listJson reads the same', async () => {
    const output = (size: number) => ({ ...makeRecord().output!, content: 'x'.repeat(size) });
    const start = Date.UTC(2026, 1, 1);
    // Seven of about a third of a page (two fit), and one larger than a page (alone on its own).
    const size = (index: number) => Math.round(MAX_PAGE_BYTES * (index === 3 ? 1.2 : 0.36));
    const large = Array.from({ length: 8 }, (_, index) =>
      makeRecord({ createdAt: start + index, agent_id: 'large', output: output(size(index)) }),
    );
    for (const store of [new MemorySink(), new SqliteSink(':memory:')]) {
      await store.write(large);
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page: CallPage = await store.list({ agent_id: 'large', limit: 1000, cursor });
        pages.push(page.data.map((record) => record.id));
        const bytes = page.data.map((record) => Buffer.byteLength(JSON.stringify(record)));
        if (bytes.length > 1) expect(bytes.reduce((sum, size) => sum + size)).toBeLessThanOrEqual(MAX_PAGE_BYTES);
        const text = await store.listJson({ agent_id: 'large', limit: 1000, cursor });
        const texts: string[] = [];
        for await (const record of text.records) texts.push(Buffer.from(record).toString());
        expect(texts.map((record) => JSON.parse(record))).toEqual(page.data);
        expect(text.next_cursor).toBe(page.next_cursor);
        cursor = page.next_cursor;
      } while (cursor);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1, 2, 1]);
      expect(pages.flat()).toEqual(large.map((record) => record.id).reverse());
    }
  });
});
