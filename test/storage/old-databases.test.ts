import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { SqliteCacheStore } from '../../src/cache/sqlite-cache-store.ts';
import { openServeStores, type ServeStores } from '../../src/server/serve-stores.ts';
import { postgresBinaries, startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { makeRecord } from '../records/make-record.ts';

/**
 * Databases written by the stores before the one storage layer (test/fixtures/storage, made at commit 4f68619):
 * today's stores open copies of them, migrate them, and every read answers what the old stores answered then. Then a
 * new record goes in and comes out, so a migrated database is a working one.
 */
const fixtures = fileURLToPath(new URL('../fixtures/storage/', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'switchyard-old-databases-'));
const server = await startPostgres();
if (!server) console.warn('SKIPPED: the PostgreSQL fixture (no PostgreSQL installed; CI installs it).');
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  await (server as ThrowawayPostgres | undefined)?.stop();
});

const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 12, minute)).toISOString();
type Expected = Awaited<ReturnType<typeof reads>> & { cache?: string };

/** What the generator read of its stores, read again of today's (their answers as JSON, as it wrote them). */
async function reads(
  stores: ServeStores,
  expected: { calls: { get: { id: string } }; keys: { plain: Record<string, string> } },
) {
  const { calls, annotations, experiments, deployments, keys } = stores;
  const pages = [];
  let cursor: string | null = null;
  do {
    const page = await calls.list({ limit: 15, cursor });
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor);
  const checks: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(expected.keys.plain)) checks[name] = await keys.check(key);
  const admin = (await keys.list()).find((key) => key.name === 'admin')!.id;
  const json = (value: unknown) => JSON.parse(JSON.stringify(value));
  return json({
    calls: {
      pages,
      mine: await calls.list({ api_key_ids: ['key_1', 'key_odd'] }),
      get: await calls.get(expected.calls.get.id),
      odd: await calls.get('odd-record'),
      workflow: await calls.workflow('trace-3'),
      timeline: await calls.workflowTimeline('trace-3', 2),
      traces: await calls.recentTraces(10),
      daily: await calls.dailyCost({ now: new Date('2026-01-25T00:00:00Z'), days: 60 }),
      agents: await calls.agents(),
      query: await calls.queryCalls({
        group_by: ['agent_id'],
        aggregates: [{ fn: 'count' }, { fn: 'p90', field: 'latency_ms' }, { fn: 'sum', field: 'cost_usd' }],
      }),
      metadata: await calls.queryCalls({ filter: { metadata: { customer: 'c1' } }, limit: 50 }),
    },
    annotations: {
      all: await annotations.list({ limit: 100, scope: {} }),
      scoped: await annotations.list({ limit: 5, scope: { api_key_ids: ['key_0'] } }),
      experiment: await annotations.list({ limit: 100, scope: {}, experiment_id: 'exp_a' }),
    },
    experiments: {
      get: await experiments.get('exp_a'),
      list: await experiments.list({ limit: 50, scope: { api_key_ids: ['key_0'] } }),
      versions: await experiments.versions('exp_a'),
      inputs: await experiments.inputs('exp_a'),
      cells: await experiments.cells('exp_a'),
      counts: await experiments.counts('exp_a'),
      completed: await experiments.completedCell('exp_a', 'key-v1.i1'),
      spending: await experiments.spending('exp_a', at(40)),
      running: await experiments.running('exp_a', at(40)),
      reuse: await experiments.findCompletedCell('key-v1.i1', {
        agentId: 'agent-1',
        author: 'key_0',
        exceptExperiment: 'exp_a',
      }),
    },
    deployments: { list: await deployments.list(), one: await deployments.get('support:production#1') },
    keys: { plain: expected.keys.plain, list: await keys.list(), checks, descendants: await keys.descendants(admin) },
  });
}

/** Every read as it was; a store the old code did not have (PostgreSQL's timeline and traces) now answers too. */
async function readsAsBefore(stores: ServeStores, expected: Expected): Promise<void> {
  const now = await reads(stores, expected);
  if (expected.calls.timeline === null) {
    expect(now.calls.timeline.call_count).toBe(expected.calls.workflow.calls.length);
    expect(now.calls.traces.map((trace: { trace_id: string }) => trace.trace_id)).toContain('trace-3');
    now.calls.timeline = null;
    now.calls.traces = null;
  }
  // Keys from before mcp_tools (issue 40) read it as null, the default; the fixtures were written before it.
  now.keys = withoutDefaultMcpTools(now.keys);
  for (const part of ['calls', 'annotations', 'experiments', 'deployments', 'keys'] as const)
    expect(now[part], part).toEqual(expected[part]);
  // A key stored before limits (keys schema 4) takes them: read back by the listing and by its check, and by the
  // check of the key it minted, as its ancestor's.
  const plain = expected.keys.plain as Record<'child' | 'grandchild', string>;
  const child = (await stores.keys.check(plain.child)) as { ok: true; key: { id: string } };
  const limits = { requests_per_minute: 30, budgets: ['5/day'] };
  expect((await stores.keys.updateLimits(child.key.id, limits)).limits).toEqual(limits);
  expect((await stores.keys.list()).find((key) => key.id === child.key.id)!.limits).toEqual(limits);
  expect(await stores.keys.check(plain.child)).toMatchObject({ ok: true, key: { limits } });
  expect(await stores.keys.check(plain.grandchild)).toMatchObject({
    ok: true,
    key: { ancestor_limits: { [child.key.id]: limits } },
  });
  await stores.keys.updateLimits(child.key.id, null);
  expect((await stores.keys.list()).find((key) => key.id === child.key.id)!.limits).toBeUndefined();
  // A migrated database is a working one: a new record in, and out.
  const record = makeRecord({ agent_id: 'after-migration', metadata: { api_key_id: 'key_new' } });
  await stores.calls.write([record]);
  expect((await stores.calls.list({ api_key_ids: ['key_new'] })).data).toEqual([record]);
}

const expectedOf = (name: string) => JSON.parse(readFileSync(join(fixtures, name), 'utf8')) as Expected;

describe('a data directory written before the one storage layer (SQLite)', () => {
  it('opens, migrates and reads as before: calls, annotations, experiments, deployments, keys, cache', async () => {
    const dataDir = join(directory, 'sqlite');
    cpSync(join(fixtures, 'sqlite-04a810a'), dataDir, { recursive: true });
    const expected = expectedOf('expected-sqlite.json');
    const stores = openServeStores({ engine: 'sqlite', path: join(dataDir, 'switchyard.sqlite') });
    try {
      await readsAsBefore(stores, expected);
    } finally {
      await stores.close();
    }
    const cache = new SqliteCacheStore(join(dataDir, 'response-cache.sqlite'));
    expect(await cache.get('tenant-a:request-1')).toBe(expected.cache);
    cache.close();
  });
});

describe.skipIf(!server)('a PostgreSQL database written before the one storage layer', () => {
  it('opens, migrates (calls to version 3) and reads as before', async () => {
    const { default: pg } = await import('pg');
    // A second database, empty, beside the file's.
    const before = (await startPostgres())!;
    onTestFinished(() => before.stop());
    const url = before.url;
    execFileSync(join(postgresBinaries()!, 'psql'), [
      url,
      '--quiet',
      '-v',
      'ON_ERROR_STOP=1',
      '-f',
      join(fixtures, 'postgres-04a810a.sql'),
    ]);
    const stores = openServeStores({ engine: 'postgres', connection: url });
    try {
      await stores.ready();
      await readsAsBefore(stores, expectedOf('expected-postgres.json'));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const versions = await client.query("SELECT version FROM switchyard_migrations WHERE name = 'calls' ORDER BY 1");
      const columns = await client.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'switchyard_calls' " +
          "AND column_name LIKE 'cost_%' ORDER BY 1",
      );
      await client.end();
      expect(versions.rows.map((row) => row.version)).toEqual([1, 2, 3]);
      expect(columns.rows.map((row) => row.column_name)).toEqual([
        'cost_cache_read_usd',
        'cost_cache_write_usd',
        'cost_input_usd',
        'cost_output_usd',
        'cost_reasoning_usd',
        'cost_usd',
      ]);
    } finally {
      await stores.close();
    }
  });
});

/** The keys' reads without `mcp_tools`, each checked to be null (the default of a key stored before the column). */
function withoutDefaultMcpTools(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaultMcpTools);
  if (value === null || typeof value !== 'object') return value;
  const { mcp_tools, ...rest } = value as Record<string, unknown>;
  if ('mcp_tools' in value) expect(mcp_tools).toBeNull();
  return Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, withoutDefaultMcpTools(item)]));
}
