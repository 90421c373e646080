import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredAnnotation } from '../../src/annotations/index.ts';
import { PostgresAnnotationStore, PostgresExperimentStore, PostgresSink } from '../../src/entries/stores.ts';
import type { PostgresPool, PostgresPoolConfig } from '../../src/internal/postgres-pool.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { makeRecord } from '../records/make-record.ts';

/**
 * Issue 35, item 9: the PostgreSQL stores' public types are written out instead of imported from `@types/pg` (which
 * a consumer may not have). What a `pg` user holds still fits them: this file's type check (the project's) proves
 * `pg.Pool` and `pg.PoolConfig` assignable, and a real PostgreSQL (skipped, saying so, without one outside CI) that
 * the stores work on a pool the caller made.
 */
const server = await startPostgres();
if (!server) console.warn('SKIPPED: the stores on a caller’s pg pool (no PostgreSQL installed; CI installs it).');

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await (server as ThrowawayPostgres | undefined)?.stop();
});

describe.skipIf(!server)('a pg pool or pg options where the stores take theirs', () => {
  it('PostgresSink from a pg.PoolConfig; the annotation and experiment stores on a pg.Pool', async () => {
    const config: pg.PoolConfig = { connectionString: server!.url, max: 2, application_name: 'consumer-test' };
    const options: PostgresPoolConfig = config;
    const sink = new PostgresSink(options);
    const record = makeRecord();
    await sink.write([record]);
    expect((await sink.get(record.id))?.id).toBe(record.id);
    await sink.close();

    const pool = new pg.Pool({ connectionString: server!.url, max: 2 });
    pools.push(pool);
    const typed: PostgresPool = pool;
    const annotations = new PostgresAnnotationStore(typed);
    const annotation: StoredAnnotation = {
      id: 'ann_pool_1',
      target: { call_id: record.id },
      agent_id: null,
      key_path: null,
      text: 'made on the caller’s pool',
      metric: null,
      author: null,
      created_at: new Date(0).toISOString(),
      call_api_key_id: null,
    };
    await annotations.insert([annotation]);
    const { call_api_key_id: _, ...listed } = annotation;
    expect((await annotations.list({ limit: 10, scope: {} })).data).toEqual([listed]);
    const experiments = new PostgresExperimentStore(pool);
    expect(await experiments.get('no-such-experiment')).toBeNull();
  });
});
