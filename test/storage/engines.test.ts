import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ExpressionBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepare, type Query, type StorageEngine } from '../../src/storage/engine.ts';
import { anyOf, epochMs, locking, percentileOf } from '../../src/storage/engine-sql.ts';
import type { Builder } from '../../src/storage/kysely.ts';
import { MemoryEngine } from '../../src/storage/memory-engine.ts';
import { PostgresEngine } from '../../src/storage/postgres-engine.ts';
import { column, defineSchema } from '../../src/storage/schema.ts';
import { SqliteEngine } from '../../src/storage/sqlite-engine.ts';
import { writeRows } from '../../src/storage/write-rows.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * The engines answer every query alike: SQLite and a real PostgreSQL run the SQL Kysely compiles, the memory engine
 * runs the same operation tree itself. Each query below is run on the three and compared (PostgreSQL skipped, saying
 * so, where it is not installed and CI is not set).
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: the engines on PostgreSQL (no PostgreSQL installed; CI installs it).');

const SCHEMA = defineSchema({
  name: 'engine_test',
  version: 1,
  tables: [
    {
      name: 'items',
      columns: {
        id: column.key({ notNull: true }),
        grp: column.text(),
        n: column.real(),
        at: column.key({ notNull: true }),
        tag: column.text({ notNull: true, default: 'none' }),
      },
      primaryKey: ['id'],
      indexes: [{ suffix: 'by_grp', columns: ['grp', 'id'] }],
    },
    {
      name: 'tree_nodes',
      columns: { id: column.text({ notNull: true }), parent: column.text() },
      primaryKey: ['id'],
      indexes: [{ suffix: 'by_parent', columns: ['parent'] }],
    },
  ],
});
const [ITEMS, NODES] = SCHEMA.tables;

const engines: Array<[string, StorageEngine]> = [
  ['memory', new MemoryEngine()],
  ['SQLite', new SqliteEngine(':memory:')],
];

const rows = Array.from({ length: 40 }, (_, index) => ({
  id: `i${String(index).padStart(2, '0')}`,
  grp: index % 7 === 0 ? null : `g${index % 3}`,
  n: index % 5 === 0 ? null : (index * 37) % 23,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  tag: index % 2 ? 'odd' : 'even',
}));
const nodes = [
  { id: 'root', parent: null },
  { id: 'a', parent: 'root' },
  { id: 'b', parent: 'root' },
  { id: 'a1', parent: 'a' },
  { id: 'a1x', parent: 'a1' },
];

beforeAll(async () => {
  if (server) engines.push(['PostgreSQL', new PostgresEngine(server.url)]);
  for (const [, engine] of engines) {
    await engine.ready(SCHEMA);
    await writeRows(engine, ITEMS!, rows, 'error');
    await writeRows(engine, NODES!, nodes, 'error');
  }
}, 60_000);
afterAll(async () => {
  for (const [, engine] of engines) await engine.close();
  await (server as ThrowawayPostgres | undefined)?.stop();
});

type Build = (engine: StorageEngine) => Query<Record<string, unknown>>;
type Eb = ExpressionBuilder<any, any>;

const QUERIES: Array<[string, Build]> = [
  [
    'where, and/or/not, comparisons, like, is null',
    () => (db) =>
      db
        .selectFrom('items')
        .select(['id', 'n'])
        .where((eb) =>
          eb.or([
            eb.and([eb('n', '>', 10), eb('grp', '<>', 'g1'), eb.not(eb('tag', 'like', 'od%'))]),
            eb('grp', 'is', null),
          ]),
        )
        .orderBy('id'),
  ],
  [
    'in lists and a list as one value',
    (engine) => (db) =>
      db
        .selectFrom('items')
        .select('id')
        .where('id', 'in', ['i01', 'i02', 'i03'])
        .where((eb) => anyOf(engine.kind, eb, 'grp', ['g1', 'g2']))
        .orderBy('id'),
  ],
  [
    'order with NULLs first and last, limit and offset',
    () => (db) =>
      db
        .selectFrom('items')
        .select(['id', 'n'])
        .orderBy('n', (item) => item.desc().nullsLast())
        .orderBy('id', (item) => item.asc().nullsFirst())
        .limit(12)
        .offset(5),
  ],
  [
    'groups: count, sum, avg, min, max, a filtered count, percentiles',
    (engine) => (db) =>
      db
        .selectFrom('items')
        .select((eb) => [
          'grp',
          eb.fn.countAll().as('rows'),
          eb.fn.count('n').as('with_n'),
          eb.fn.sum('n').as('sum'),
          eb.fn.avg('n').as('avg'),
          eb.fn.min('n').as('min'),
          eb.fn.max('at').as('last'),
          eb.fn.countAll().filterWhere('tag', '=', 'odd').as('odd'),
          percentileOf(engine.kind, eb, 'n', 0.9).as('p90'),
        ])
        .groupBy('grp')
        .orderBy('grp', (item) => item.asc().nullsFirst()),
  ],
  [
    'an aggregate over no rows is one row',
    () => (db) =>
      db
        .selectFrom('items')
        .select((eb) => [eb.fn.countAll().as('rows'), eb.fn.sum('n').as('sum')])
        .where('id', '=', 'none'),
  ],
  [
    'joins, inner and left',
    () => (db) =>
      db
        .selectFrom('tree_nodes as child')
        .leftJoin('tree_nodes as up', 'up.id', 'child.parent')
        .select(['child.id as child', 'up.id as parent', 'up.parent as grandparent'])
        .orderBy('child.id'),
  ],
  [
    'exists and in a subquery',
    () => (db) =>
      db
        .selectFrom('tree_nodes as t')
        .select('t.id')
        .where((eb) => eb.exists(eb.selectFrom('tree_nodes as c').select('c.id').whereRef('c.parent', '=', 't.id')))
        .where('t.id', 'in', (eb: Eb) => eb.selectFrom('tree_nodes').select('parent').where('parent', 'is not', null))
        .orderBy('t.id'),
  ],
  [
    'a recursive walk down a tree',
    () => (db) =>
      db
        .withRecursive('down', (tree) =>
          tree
            .selectFrom('tree_nodes')
            .select((eb) => ['id', eb.lit(1).as('depth')])
            .where('parent', '=', 'root')
            .unionAll((step) =>
              step
                .selectFrom('tree_nodes as n')
                .innerJoin('down', 'down.id', 'n.parent')
                .select((eb) => ['n.id', eb(eb.ref('down.depth'), '+', eb.lit(1)).as('depth')]),
            ),
        )
        .selectFrom('down')
        .select(['id', 'depth'])
        .orderBy('depth')
        .orderBy('id'),
  ],
  [
    'a case, coalesce, substr and octet_length',
    () => (db) =>
      db
        .selectFrom('items')
        .select((eb) => [
          'id',
          eb.case().when('n', '>', 10).then('big').when('n', 'is', null).then('none').else('small').end().as('size'),
          eb.fn.coalesce('grp', eb.val('-')).as('grp'),
          eb.fn('substr', [eb.ref('at'), eb.lit(1), eb.lit(10)]).as('day'),
          eb.fn('octet_length', [eb.ref('tag')]).as('bytes'),
        ])
        .where('id', '<', 'i08')
        .orderBy('id'),
  ],
  [
    'times as milliseconds',
    (engine) => (db) => db.selectFrom('items').select((eb) => [eb.fn.max(epochMs(engine.kind, eb, 'at')).as('latest')]),
  ],
  [
    'a locking read (PostgreSQL locks, the others hold the database)',
    (engine) => (db) => locking(engine.kind, db.selectFrom('items').select('id').where('id', '=', 'i03')),
  ],
];

describe('every engine answers a query as the others', () => {
  it.each(QUERIES)('%s', async (_name, build) => {
    const answers = [];
    for (const [name, engine] of engines) answers.push([name, normal((await engine.run(build(engine))).rows)] as const);
    expect(answers[0]![1].length, 'rows').toBeGreaterThan(0);
    for (const [name, answer] of answers.slice(1)) expect(answer, name).toEqual(answers[0]![1]);
  });
});

/** Numbers as numbers (PostgreSQL's counts come as text from pools that are not ours), rounded in their last bits. */
function normal(rows: Array<Record<string, unknown>>) {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => {
        const number = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
        return [key, typeof number === 'number' ? Math.round(number * 1e6) / 1e6 : number];
      }),
    ),
  );
}

describe('writes', () => {
  const upsert = prepare((db, arg) =>
    db
      .insertInto('items')
      .values({ id: arg('id'), grp: 'w', n: arg('n'), at: '2027-01-01T00:00:00.000Z' })
      .onConflict((on) =>
        on
          .column('id')
          .doUpdateSet({ n: (eb: Eb) => eb.ref('excluded.n') })
          .where('items.n', '<', arg('below')),
      ),
  );

  it.each(engines.map(([name]) => name))(
    '%s: inserts, conditional upserts, updates returning, deletes',
    async (name) => {
      const engine = engines.find(([each]) => each === name)![1];
      expect((await engine.run(upsert, { id: 'w1', n: 5, below: 0 })).changes).toBe(1);
      // The row exists: updated only while the condition on the stored row holds.
      expect((await engine.run(upsert, { id: 'w1', n: 9, below: 1 })).changes).toBe(0);
      expect((await engine.run(upsert, { id: 'w1', n: 9, below: 6 })).changes).toBe(1);
      const read = () => (db: Builder) => db.selectFrom('items').select(['n', 'tag']).where('id', '=', 'w1');
      expect((await engine.run(read())).rows).toEqual([{ n: 9, tag: 'none' }]);
      const updated = await engine.run((db) =>
        db.updateTable('items').set({ tag: 'seen' }).where('id', '=', 'w1').returning(['id', 'tag']),
      );
      expect(updated.rows).toEqual([{ id: 'w1', tag: 'seen' }]);
      expect((await engine.run((db) => db.deleteFrom('items').where('grp', '=', 'w'))).changes).toBe(1);
      expect((await engine.run(read())).rows).toEqual([]);
    },
  );

  it.each(engines.map(([name]) => name))(
    '%s: a transaction is all or nothing, a key taken twice refused',
    async (name) => {
      const engine = engines.find(([each]) => each === name)![1];
      const row = (id: string) => ({ id, grp: 't', n: 1, at: '2027-01-01T00:00:00.000Z', tag: 'x' });
      await expect(
        engine.transaction(async (tx) => {
          await writeRows(tx, ITEMS!, [row('t1')], 'error');
          await writeRows(tx, ITEMS!, [row('t2'), row('i01')], 'error');
        }),
      ).rejects.toThrow();
      const count = async () =>
        Number(
          (
            await engine.run((db) =>
              db
                .selectFrom('items')
                .select((eb) => eb.fn.countAll().as('c'))
                .where('grp', '=', 't'),
            )
          ).rows[0]!.c,
        );
      expect(await count()).toBe(0);
      await engine.transaction((tx) => writeRows(tx, ITEMS!, [row('t3')], 'error'));
      expect(await count()).toBe(1);
      expect(await writeRows(engine, ITEMS!, [row('t3')], 'ignore')).toBe(0);
    },
  );
});

describe('the memory engine', () => {
  it('keeps the newest rows of a table with a capacity, forgetting the oldest written', async () => {
    const engine = new MemoryEngine({ capacity: { tree_nodes: 3 } });
    await engine.ready(SCHEMA);
    await writeRows(engine, NODES!, nodes, 'error');
    const { rows: kept } = await engine.run((db) => db.selectFrom('tree_nodes').select('id'));
    expect(kept).toEqual([{ id: 'b' }, { id: 'a1' }, { id: 'a1x' }]);
  });

  it('imports nothing of Node and evaluates no code: it runs wherever JavaScript does', () => {
    const root = fileURLToPath(new URL('../../src/storage/', import.meta.url));
    const seen = new Set<string>();
    const visit = (source: string) => {
      // As the web build sees it: a module with a `.web.ts` seam beside it is replaced by that file (tsup.web.ts).
      const file = existsSync(source.replace(/\.ts$/, '.web.ts')) ? source.replace(/\.ts$/, '.web.ts') : source;
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from 'node:|require\(|\beval\(|new Function\b/);
      // Static imports, and the query layer it imports when a query first runs.
      for (const [, named, imported] of text.matchAll(
        /^import (?!type)[^;]*from '(\.[^']+)'|\bimport\('(\.[^']+)'\)/gm,
      ))
        visit(resolve(dirname(file), (named ?? imported)!));
    };
    visit(join(root, 'memory-engine.ts'));
    expect(seen.size).toBeGreaterThan(8);
  });
});

describe.skipIf(!server)('the PostgreSQL engine under a burst', () => {
  // Before: pg's `connectionTimeoutMillis` (1 s, to fail fast on an outage) also timed the wait for a busy pool's
  // free connection, so a burst of sound requests got 503 "PostgreSQL is unavailable" while the database was fine.
  it('queues work beyond its connections instead of calling the wait an outage', async () => {
    const engine = new PostgresEngine(server!.url, { max: 1 });
    try {
      await engine.ping();
      const sleep = (db: Builder) => db.selectNoFrom(sql`pg_sleep(0.6)`.as('slept'));
      const held = Array.from({ length: 3 }, () => engine.transaction((tx) => tx.run(sleep)));
      const results = await Promise.allSettled([...held, engine.run((db) => db.selectNoFrom(sql`1`.as('one')))]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    } finally {
      await engine.close();
    }
  }, 20_000);
});

describe.skipIf(!server)('the PostgreSQL engine when a connection drops in a transaction', () => {
  // pg-pool listens to no error of a checked-out client: the drop was an uncaught 'error' that ended the process.
  it('fails that transaction as the database being unavailable; the process and the engine go on', async () => {
    const engine = new PostgresEngine(server!.url, { max: 2 });
    try {
      const dropped = engine.transaction((tx) =>
        tx.run((db) => db.selectNoFrom(sql`pg_terminate_backend(pg_backend_pid())`.as('gone'))),
      );
      await expect(dropped).rejects.toMatchObject({ status: 503 });
      const one = await engine.run((db) => db.selectNoFrom(sql<number>`1`.as('one')));
      expect(one.rows).toEqual([{ one: 1 }]);
    } finally {
      await engine.close();
    }
  }, 20_000);
});

describe.skipIf(!server)("the PostgreSQL engine's health probe", () => {
  // The probe waited in the pool's queue: with every connection busy (a burst of slow summaries), a sound database
  // read as down, and every replica failed its readiness at once.
  it('answers while every connection of the pool is busy: a busy pool is not PostgreSQL down', async () => {
    const engine = new PostgresEngine(server!.url, { max: 1, queryTimeoutMs: 5_000 });
    try {
      // Takes the pool's one connection at once; the probe then comes while it is held.
      const held = engine.transaction((tx) => tx.run((db) => db.selectNoFrom(sql`pg_sleep(2)`.as('slept'))));
      await expect(engine.ping(1_000)).resolves.toBeUndefined();
      await held;
    } finally {
      await engine.close();
    }
  }, 20_000);
});
