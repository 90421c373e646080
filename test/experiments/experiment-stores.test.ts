import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type {
  ExperimentCell,
  ExperimentHeader,
  ExperimentInput,
  ExperimentVersion,
} from '../../src/experiments/experiment.ts';
import type { ExperimentStore } from '../../src/experiments/experiment-store.ts';
import type { SqliteEngine } from '../../src/storage/sqlite-engine.ts';
import { openStores, type Stores } from '../../src/stores/open-stores.ts';
import { makeFirstVersion } from '../helpers/old-schemas.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * One contract for each experiment store (memory, SQLite in a temporary file, a real PostgreSQL: skipped, saying
 * so, where PostgreSQL is not installed and CI is not set): the memory store's answers are the reference.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: experiment store on PostgreSQL (no PostgreSQL installed; CI installs it).');

const dir = mkdtempSync(join(tmpdir(), 'switchyard-experiments-'));
const memoryStores = openStores({ engine: 'memory' });
const sqliteStores = openStores({ engine: 'sqlite', path: join(dir, 'records.db') });
let postgresStores: Stores | undefined;
const stores: Array<[string, () => ExperimentStore]> = [
  ['memory', () => memoryStores.experiments],
  ['SQLite', () => sqliteStores.experiments],
  ...(server ? [['PostgreSQL', () => postgresStores!.experiments] as [string, () => ExperimentStore]] : []),
];

beforeAll(async () => {
  if (server) postgresStores = openStores({ engine: 'postgres', connection: server.url });
}, 60_000);
afterAll(async () => {
  await sqliteStores.close();
  rmSync(dir, { recursive: true, force: true });
  await postgresStores?.close();
  await (server as ThrowawayPostgres | undefined)?.stop();
});

const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 12, minute)).toISOString();
// Each store's tests get ids of their own, so a failure names one store's rows.
let run = 0;

function header(id: string, agent: string, author: string | null, minute = 0): ExperimentHeader {
  const title = `Prices «${id}» 価格 🧪`;
  return { id, agent_id: agent, title, description: null, budget_usd: 1.5, author, created_at: at(minute) };
}

function version(id: string): ExperimentVersion {
  return {
    id,
    label: `v ${id} — ünïcödé 🚀`,
    deployment_id: null,
    content: {
      model: 'gpt-test',
      messages: [{ role: 'system', content: 'Say "hi"\n\t\\ \u0000 end' }],
      settings: { temperature: 0.25, nested: { list: [1, 2.5, null, true, { deep: 'é' }] } },
    } as unknown as ExperimentVersion['content'],
    key: `vkey-${id}`,
    created_at: at(1),
  };
}

function input(id: string): ExperimentInput {
  return {
    id,
    label: id.endsWith('1') ? null : `input ${id}`,
    variables: { city: 'Zürich', prices: [{ item: '☕', eur: 3.2 }], empty: {}, none: null },
    messages: [{ role: 'user', content: `Question 問題 ${id}` }],
    source_call_id: null,
    key: `ikey-${id}`,
    created_at: at(2),
  };
}

function cell(id: string, status: ExperimentCell['status'], updatedAt: string, key = `key-${id}`): ExperimentCell {
  return {
    id,
    version_id: id.split('.')[0]!,
    input_id: id.split('.')[1]!,
    status,
    key,
    call_id: status === 'completed' ? `call-${id}` : null,
    reused_from: null,
    output: status === 'completed' ? '{"price": 3.2, "name": "naïve ☕"}' : null,
    parsed: status === 'completed' ? { price: 3.2, name: 'naïve ☕', tags: ['a', 'b'] } : null,
    valid: status === 'completed' ? true : null,
    cost_usd: status === 'completed' ? 0.000123 : null,
    latency_ms: status === 'completed' ? 812 : null,
    usage: status === 'completed' ? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } : null,
    error: status === 'failed' ? { type: 'api_error', code: null, message: 'upstream 500 «x»' } : null,
    updated_at: updatedAt,
  } as ExperimentCell;
}

describe.each(stores)('%s', (_, store) => {
  const p = `exp_${String(++run).padStart(2, '0')}`;

  it('creates, gets and lists headers newest first, filtered and paged', async () => {
    const headers = Array.from({ length: 7 }, (_, index) =>
      header(
        `${p}_list_${index}`,
        index % 2 === 0 ? 'agent-a' : 'agent-b',
        index % 3 === 0 ? null : `key_${index % 3}`,
      ),
    );
    for (const each of headers) await store().create(each);
    expect(await store().get(headers[3]!.id)).toEqual(headers[3]);
    expect(await store().get(`${p}_missing`)).toBeNull();

    const mine = (list: ExperimentHeader[]) => list.filter((each) => each.id.startsWith(`${p}_list_`));
    const newest = [...headers].reverse();
    const all = await store().list({ limit: 200, scope: {} });
    expect(mine(all.data)).toEqual(newest);
    expect(all.next_cursor).toBeNull();

    const agent = await store().list({ limit: 200, scope: {}, agent_id: 'agent-b' });
    expect(mine(agent.data)).toEqual(newest.filter((each) => each.agent_id === 'agent-b'));
    const scoped = await store().list({ limit: 200, scope: { agent_ids: ['agent-a'] } });
    expect(mine(scoped.data)).toEqual(newest.filter((each) => each.agent_id === 'agent-a'));
    expect((await store().list({ limit: 200, scope: { agent_ids: [] } })).data).toEqual([]);
    // A key's scope: what it created; in-process experiments (author null) are nobody's.
    const keyed = await store().list({ limit: 200, scope: { api_key_ids: ['key_1'] } });
    expect(mine(keyed.data)).toEqual(newest.filter((each) => each.author === 'key_1'));
    const both = await store().list({ limit: 200, scope: { agent_ids: ['agent-a'], api_key_ids: ['key_1', 'key_2'] } });
    expect(mine(both.data)).toEqual(newest.filter((each) => each.agent_id === 'agent-a' && each.author !== null));

    const seen: string[] = [];
    let cursor: string | undefined = `${p}_list_9`;
    for (let page = 0; page < 10 && cursor; page++) {
      const answer = await store().list({ limit: 3, scope: {}, cursor });
      seen.push(...mine(answer.data).map((each) => each.id));
      expect(answer.data.length).toBeLessThanOrEqual(3);
      cursor = answer.next_cursor ?? undefined;
    }
    expect(seen).toEqual(newest.map((each) => each.id));
  });

  it('keeps versions and inputs in order, their JSON exactly as written', async () => {
    const id = `${p}_parts`;
    await store().create(header(id, 'agent-a', null));
    const versions = ['ver_01', 'ver_02', 'ver_03'].map(version);
    const inputs = ['inp_01', 'inp_02', 'inp_03', 'inp_04'].map(input);
    await store().addVersions(id, versions.slice(0, 2));
    await store().addVersions(id, versions.slice(2));
    await store().addVersions(id, []);
    await store().addInputs(id, inputs.slice(0, 1));
    await store().addInputs(id, inputs.slice(1));
    expect(await store().versions(id)).toEqual(versions);
    expect(await store().inputs(id)).toEqual(inputs);
    // Key order too: what was written is what is read.
    expect(JSON.stringify(await store().versions(id))).toBe(JSON.stringify(versions));
    expect(JSON.stringify(await store().inputs(id))).toBe(JSON.stringify(inputs));
  });

  it('answers an unknown experiment with nothing', async () => {
    const id = `${p}_unknown`;
    expect(await store().get(id)).toBeNull();
    expect(await store().versions(id)).toEqual([]);
    expect(await store().inputs(id)).toEqual([]);
    expect(await store().cells(id)).toEqual([]);
  });

  it('puts, replaces and lists cells', async () => {
    const id = `${p}_cells`;
    await store().create(header(id, 'agent-a', null));
    const first = cell('ver_01.inp_01', 'pending', at(3));
    const second = cell('ver_01.inp_02', 'pending', at(3));
    await store().putCell(id, first);
    await store().putCell(id, second);
    const done = cell('ver_01.inp_01', 'completed', at(4));
    await store().putCell(id, done);
    expect(await store().cells(id)).toEqual([done, second]);
    expect(JSON.stringify((await store().cells(id))[0])).toBe(JSON.stringify(done));
  });

  it('claims a cell only when it may be run', async () => {
    const id = `${p}_claims`;
    await store().create(header(id, 'agent-a', null));
    const stale = at(10);
    const claim = (cellId: string, minute: number) => store().claimCell(id, cell(cellId, 'running', at(minute)), stale);

    expect(await claim('v.fresh', 20)).toBe(true);
    expect(await claim('v.fresh', 21)).toBe(false);
    expect((await store().cells(id)).find((each) => each.id === 'v.fresh')?.updated_at).toBe(at(20));

    await store().putCell(id, cell('v.stale', 'running', at(5)));
    expect(await claim('v.stale', 22)).toBe(true);
    await store().putCell(id, cell('v.edge', 'running', stale));
    expect(await claim('v.edge', 22)).toBe(false);
    await store().putCell(id, cell('v.done', 'completed', at(5)));
    expect(await claim('v.done', 22)).toBe(false);
    for (const status of ['failed', 'pending', 'skipped'] as const) {
      await store().putCell(id, cell(`v.${status}`, status, at(15)));
      expect(await claim(`v.${status}`, 22)).toBe(true);
    }
    const cells = new Map((await store().cells(id)).map((each) => [each.id, each]));
    expect(cells.get('v.stale')).toEqual(cell('v.stale', 'running', at(22)));
    expect(cells.get('v.done')?.status).toBe('completed');
    expect(cells.get('v.failed')).toEqual(cell('v.failed', 'running', at(22)));
  });

  it('gives one of two concurrent claims of a cell', async () => {
    const id = `${p}_race`;
    await store().create(header(id, 'agent-a', null));
    for (let round = 0; round < 5; round++) {
      const claims = await Promise.all(
        [0, 1].map(() => store().claimCell(id, cell(`v.race${round}`, 'running', at(30)), at(10))),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    }
  });

  it('finds the newest completed cell of a key among the same agent and author', async () => {
    const make = async (suffix: string, agent: string, author: string | null, cells: ExperimentCell[]) => {
      await store().create(header(`${p}_find_${suffix}`, agent, author));
      for (const each of cells) await store().putCell(`${p}_find_${suffix}`, each);
    };
    const key = `${p}-shared`;
    await make('a', 'agent-a', null, [cell('v.old', 'completed', at(1), key), cell('v.run', 'running', at(9), key)]);
    await make('b', 'agent-a', null, [cell('v.new', 'completed', at(5), key), cell('v.fail', 'failed', at(8), key)]);
    await make('c', 'agent-a', 'key_1', [cell('v.keyed', 'completed', at(7), key)]);
    await make('d', 'agent-b', null, [cell('v.other', 'completed', at(8), key)]);
    await make('e', 'agent-a', null, [cell('v.latest', 'completed', at(6), `${key}-not`)]);
    const find = (author: string | null, exceptExperiment: string, agentId = 'agent-a', k = key) =>
      store().findCompletedCell(k, { agentId, author, exceptExperiment });

    expect(await find(null, `${p}_find_x`)).toEqual(cell('v.new', 'completed', at(5), key));
    expect(await find(null, `${p}_find_b`)).toEqual(cell('v.old', 'completed', at(1), key));
    expect(await find('key_1', `${p}_find_x`)).toEqual(cell('v.keyed', 'completed', at(7), key));
    expect(await find('key_1', `${p}_find_c`)).toBeNull();
    expect(await find('key_2', `${p}_find_x`)).toBeNull();
    expect(await find(null, `${p}_find_x`, 'agent-b')).toEqual(cell('v.other', 'completed', at(8), key));
    expect(await find(null, `${p}_find_x`, 'agent-a', `${p}-missing`)).toBeNull();
  });

  it('adds versions and inputs only while the experiment stays within its cap, and counts them', async () => {
    const id = `${p}_caps`;
    await store().create(header(id, 'agent-a', null));
    const versions = ['ver_01', 'ver_02', 'ver_03'].map(version);
    expect(await store().addVersions(id, versions.slice(0, 2), 3)).toEqual({ added: true, held: 0 });
    expect(await store().addVersions(id, versions.slice(2).concat(version('ver_04')), 3)).toEqual({
      added: false,
      held: 2,
    });
    expect(await store().addVersions(id, versions.slice(2), 3)).toEqual({ added: true, held: 2 });
    const inputs = ['inp_01', 'inp_02'].map(input);
    expect(await store().addInputs(id, inputs, 1)).toEqual({ added: false, held: 0 });
    expect(await store().addInputs(id, inputs, 2)).toEqual({ added: true, held: 0 });
    expect(await store().counts(id)).toEqual({ versions: 3, inputs: 2 });
    expect(await store().versions(id)).toEqual(versions);
    // Two adds at once: of the two that would pass the cap together, one is added.
    const more = [
      ['inp_03', 'inp_04'],
      ['inp_05', 'inp_06'],
    ].map((ids) => store().addInputs(id, ids.map(input), 4));
    expect((await Promise.all(more)).map((appended) => appended.added).sort()).toEqual([false, true]);
    expect(await store().counts(id)).toEqual({ versions: 3, inputs: 4 });
    expect(await store().counts(`${p}_nothing`)).toEqual({ versions: 0, inputs: 0 });
  });

  it('finds a completed cell of this experiment by key, and sums what its cells spent and hold', async () => {
    const id = `${p}_money`;
    await store().create(header(id, 'agent-a', null));
    const key = `${p}-same`;
    const reused = { ...cell('v2.i1', 'completed', at(6), key), reused_from: `${id}/v1.i1` };
    const held = (cellId: string, minute: number, usd: number) => ({
      ...cell(cellId, 'running', at(minute)),
      held_usd: usd,
    });
    for (const each of [
      cell('v1.i1', 'completed', at(5), key),
      reused,
      cell('v3.i1', 'failed', at(5), key),
      held('v4.i1', 20, 0.5),
      held('v5.i1', 5, 0.25),
      cell('v6.i1', 'running', at(20)),
    ])
      await store().putCell(id, each);
    expect(await store().completedCell(id, key)).toEqual(cell('v1.i1', 'completed', at(5), key));
    expect(await store().completedCell(id, `${p}-other`)).toBeNull();
    expect(await store().completedCell(`${p}_nothing`, key)).toBeNull();
    // Spent: the completed cell that called (not the reused one); held: the fresh running cell with a hold.
    expect(await store().spending(id, at(10))).toEqual({
      spent_usd: 0.000123,
      holds: [{ id: 'v4.i1', held_usd: 0.5 }],
    });
    expect(await store().running(id, at(10))).toBe(2);
    expect(await store().running(id, at(1))).toBe(3);
    await store().putCell(id, { ...cell('v4.i1', 'completed', at(21)), held_usd: 0 });
    expect(await store().spending(id, at(10))).toEqual({ spent_usd: 0.000246, holds: [] });
  });
});

describe('each database', () => {
  it('shows every caller the same experiments, whichever store opened on it', async () => {
    const pairs: Array<[string, ExperimentStore, ExperimentStore]> = [
      ['memory', memoryStores.experiments, openStores(memoryStores.engine).experiments],
      ['SQLite', sqliteStores.experiments, openStores(sqliteStores.engine).experiments],
      ...(postgresStores
        ? [
            ['PostgreSQL', postgresStores.experiments, openStores(postgresStores.engine).experiments] as [
              string,
              ExperimentStore,
              ExperimentStore,
            ],
          ]
        : []),
    ];
    for (const [name, one, other] of pairs) {
      await one.create(header(`exp_shared_${name}`, 'agent-a', null));
      expect(await other.get(`exp_shared_${name}`), name).toEqual(header(`exp_shared_${name}`, 'agent-a', null));
    }
  });
});

describe('cells stored before spent_usd and held_usd', () => {
  const cells = [
    { ...cell('v1.i1', 'completed', at(5)), cost_usd: 0.5, output: 'nul \u0000 and lone \ud800' },
    { ...cell('v2.i1', 'completed', at(5)), cost_usd: 0.5, reused_from: 'exp_x/v1.i1' },
    { ...cell('v3.i1', 'running', at(20)), held_usd: 0.25 },
  ];

  it('SQLite fills both columns from the bodies when it opens the database', async () => {
    const path = join(dir, 'before-money.db');
    const first = openStores({ engine: 'sqlite', path });
    await first.experiments.create(header('exp_before', 'agent-a', null));
    for (const each of cells) await first.experiments.putCell('exp_before', each);
    // As an earlier version left them: no columns, no index.
    const raw = (first.engine as SqliteEngine).connection;
    raw.exec('DROP INDEX experiment_cells_by_state');
    raw.exec('ALTER TABLE experiment_cells DROP COLUMN spent_usd');
    raw.exec('ALTER TABLE experiment_cells DROP COLUMN held_usd');
    await first.close();
    const reopened = openStores({ engine: 'sqlite', path });
    const store = reopened.experiments;
    expect(await store.spending('exp_before', at(10))).toEqual({
      spent_usd: 0.5,
      holds: [{ id: 'v3.i1', held_usd: 0.25 }],
    });
    expect(await store.cells('exp_before')).toEqual(cells);
    await reopened.close();
  });

  it.skipIf(!server)('PostgreSQL fills both columns in its migration, bodies its json refuses included', async () => {
    const { default: pg } = await import('pg');
    // A second database, empty, beside the file's.
    const before = (await startPostgres())!;
    onTestFinished(() => before.stop());
    const url = before.url;
    const pool = new pg.Pool({ connectionString: url });
    await makeFirstVersion(pool, 'experiments');
    for (const each of cells)
      await pool.query(
        'INSERT INTO switchyard_experiment_cells (experiment_id, id, key, status, updated_at, body) ' +
          'VALUES ($1, $2, $3, $4, $5, $6)',
        ['exp_before', each.id, each.key, each.status, each.updated_at, JSON.stringify(each)],
      );
    await pool.end();
    const reopened = openStores({ engine: 'postgres', connection: url });
    expect(await reopened.experiments.spending('exp_before', at(10))).toEqual({
      spent_usd: 0.5,
      holds: [{ id: 'v3.i1', held_usd: 0.25 }],
    });
    await reopened.close();
  });
});
