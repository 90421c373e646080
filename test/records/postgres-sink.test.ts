import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type CallRecord, type CallStore, MemorySink, PostgresSink } from '../../src/records/index.ts';
import { makeFirstVersion } from '../helpers/old-schemas.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { makeRecord, makeRecords } from './make-record.ts';

/**
 * PostgresSink against a real PostgreSQL (Debian's package, a throwaway instance on loopback): every query answers
 * as the memory store does on the same 5,000 records, migrations run once when several sinks start together, and a
 * record PostgreSQL cannot store costs that record only. Skipped, saying so, where PostgreSQL is not installed and
 * CI is not set.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: PostgresSink tests (no PostgreSQL installed; CI installs it).');

const ROWS = 5_000;
const records = makeRecords(ROWS);
const memory = new MemorySink({ capacity: ROWS });
await memory.write(records);
let postgres: PostgresSink;

beforeAll(async () => {
  if (!server) return;
  // Five sinks starting at once, as replicas do: the advisory lock lets one migrate.
  const sinks = Array.from({ length: 5 }, () => new PostgresSink(server.url));
  await Promise.all(sinks.map((sink) => sink.ready()));
  await Promise.all(sinks.slice(1).map((sink) => sink.close()));
  postgres = sinks[0]!;
  for (let offset = 0; offset < ROWS; offset += 500) await postgres.write(records.slice(offset, offset + 500));
}, 60_000);
afterAll(async () => {
  await postgres?.close();
  await (server as ThrowawayPostgres | undefined)?.stop();
});

async function allPages(store: CallStore, query: Parameters<CallStore['list']>[0], size: number) {
  const rows: CallRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.list({ ...query, limit: size, cursor });
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

describe.skipIf(!server)('PostgresSink', () => {
  it('answers every query as the memory store does', async () => {
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
    for (const query of queries) expect(await query(postgres)).toEqual(await query(memory));
  });

  it('migrated once, with the indexes for the workflow, agent and daily-cost queries', async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: server!.url });
    await client.connect();
    const migrations = await client.query('SELECT name, version FROM switchyard_migrations');
    const indexes = await client.query("SELECT indexname FROM pg_indexes WHERE tablename = 'switchyard_calls'");
    await client.end();
    // Version 3 gave PostgreSQL the cost columns SQLite had (issue 37's one schema).
    expect(migrations.rows).toEqual([
      { name: 'calls', version: 1 },
      { name: 'calls', version: 2 },
      { name: 'calls', version: 3 },
    ]);
    expect(indexes.rows.map((row) => row.indexname).sort()).toEqual([
      'switchyard_calls_by_created_at',
      'switchyard_calls_pkey',
      'switchyard_calls_with_agent_id',
      'switchyard_calls_with_api_key_id',
      'switchyard_calls_with_trace_id',
      'switchyard_calls_with_workflow_name',
    ]);
  });

  it('fills api_key_id of a database made before it, records PostgreSQL’s json refuses included', async () => {
    const { default: pg } = await import('pg');
    // A second database, empty, beside the file's.
    const before = (await startPostgres())!;
    onTestFinished(() => before.stop());
    const url = before.url;
    // The first version's schema, and rows as it wrote them (no api_key_id column).
    const pool = new pg.Pool({ connectionString: url });
    await makeFirstVersion(pool, 'calls');
    const mine = makeRecord({ agent_id: 'a', metadata: { api_key_id: 'key_mine' }, input: { text: 'nul \u0000' } });
    const odd = makeRecord({ agent_id: 'b', metadata: { note: 'lone \ud800', api_key_id: 'key_odd' } });
    const theirs = makeRecord({ agent_id: 'c', metadata: { api_key_id: 'key_theirs' } });
    const none = makeRecord({ agent_id: 'd' });
    for (const record of [mine, odd, theirs, none])
      await pool.query(
        'INSERT INTO switchyard_calls (id, created_at, agent_id, requested_model, status, stream, prompt_tokens, ' +
          "completion_tokens, reasoning_tokens, cached_tokens, latency_ms, record) VALUES ($1, $2, $3, 'm', 'ok', " +
          'false, 0, 0, 0, 0, 1, $4)',
        [record.id, record.created_at, record.agent_id, JSON.stringify(record)],
      );
    await pool.end();
    const sink = new PostgresSink(url);
    const page = await sink.list({ api_key_ids: ['key_mine', 'key_odd'] });
    expect(page.data.map((record) => record.agent_id).sort()).toEqual(['a', 'b']);
    const { data } = await sink.queryCalls({ group_by: ['agent_id'] }, { scope: { api_key_ids: ['key_theirs'] } });
    expect(data).toEqual([{ agent_id: 'c', count: 1 }]);
    await sink.close();
  });

  it('keeps records with what JSONB would refuse (NUL, lone surrogates); rewriting a batch is harmless', async () => {
    const odd = makeRecord({ id: 'odd-record', agent_id: 'agent-\u0000-\ud800' });
    await postgres.write([odd, odd]);
    await postgres.write([odd]);
    expect(await postgres.get('odd-record')).toEqual(JSON.parse(JSON.stringify(odd)));
  });

  it('filters on metadata whatever another call’s record holds (NUL, lone surrogates)', async () => {
    const content = 'nul \u0000 lone \ud800';
    const odd = makeRecord({ id: 'odd-content', input_messages: [{ role: 'user', content }] });
    const tagged = makeRecord({ id: 'tagged', metadata: { team: 'a\\ud800b', api_key_id: 'key_t' } });
    await postgres.write([odd, tagged]);
    const query = { filter: { metadata: { team: 'a\\ud800b' } }, aggregates: [{ fn: 'count' as const }] };
    expect((await postgres.queryCalls(query)).data).toEqual([{ count: 1 }]);
  });
});
