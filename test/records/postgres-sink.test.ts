import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallRecord, type CallStore, MemorySink, PostgresSink } from '../../src/records/index.ts';
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
memory.write(records);
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
    expect(migrations.rows).toEqual([{ name: 'calls', version: 1 }]);
    expect(indexes.rows.map((row) => row.indexname).sort()).toEqual([
      'switchyard_calls_by_created_at',
      'switchyard_calls_pkey',
      'switchyard_calls_with_agent_id',
      'switchyard_calls_with_trace_id',
      'switchyard_calls_with_workflow_name',
    ]);
  });

  it('keeps records with what JSONB would refuse (NUL, lone surrogates); rewriting a batch is harmless', async () => {
    const odd = makeRecord({ id: 'odd-record', agent_id: 'agent-\u0000-\ud800' });
    await postgres.write([odd, odd]);
    await postgres.write([odd]);
    expect(await postgres.get('odd-record')).toEqual(JSON.parse(JSON.stringify(odd)));
  });
});
