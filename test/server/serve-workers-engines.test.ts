import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresKeyStore } from '../../src/server/postgres-key-store.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { freshClient, type ServedCluster, serveCluster } from '../helpers/serve-workers.ts';

/**
 * Issue 41, item 3: with PostgreSQL and Redis, the workers of `serve --workers` use them as replicas do, so a key's
 * rate holds across the workers and another `serve` beside them, and every answered call is one record in the one
 * database: two workers and a single-process replica, 80 calls spread over the three, 59 to 61 pass a 60-a-minute
 * limit, and each replica lists exactly the calls that passed.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
const redis: ThrowawayRedis | undefined = postgres ? await startRedis() : undefined;
if (!postgres || !redis) console.warn('SKIPPED: serve --workers with PostgreSQL and Redis (CI installs both).');

const dataDirs: string[] = [];
let key = '';
let workers: ServedCluster;
let replica: ServedCluster;

beforeAll(async () => {
  if (!postgres || !redis) return;
  const keys = new PostgresKeyStore(postgres.url);
  key = (await keys.create('shared')).key;
  await keys.close();
  const shared = ['--mock', '--database', postgres.url, '--redis', redis.url, '--rate-limit', '60'];
  [workers, replica] = (await Promise.all(
    ['workers', 'replica'].map((name) => {
      const dataDir = mkdtempSync(join(tmpdir(), `switchyard-${name}-`));
      dataDirs.push(dataDir);
      return serveCluster([...(name === 'workers' ? ['--workers', '2'] : []), '--data', dataDir, ...shared]);
    }),
  )) as [ServedCluster, ServedCluster];
}, 60_000);
afterAll(async () => {
  for (const served of [workers, replica]) {
    served?.child.kill('SIGKILL');
    await served?.exited;
  }
  await redis?.stop();
  await postgres?.stop();
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!postgres || !redis)('serve --workers 2 --database … --redis …', () => {
  it('as replicas: 59 to 61 of 80 calls over two workers and a replica pass 60/min, each recorded once', async () => {
    const configuration = workers.lines().find((line) => line.msg === 'configuration') as { stores: object };
    expect(configuration.stores).toMatchObject({ counters: redis!.url });
    const answered: string[] = [];
    let passed = 0;
    const started = performance.now();
    for (let batch = 0; batch < 20; batch++)
      await Promise.all(
        Array.from({ length: 4 }, async (_, index) => {
          const url = index % 2 === 0 ? workers.url : replica.url;
          try {
            const { response } = await freshClient(url, key)
              .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
              .withResponse();
            passed += 1;
            answered.push(response.headers.get('x-switchyard-worker') ?? 'replica');
          } catch (error) {
            if (!(error instanceof OpenAI.APIError) || error.status !== 429) throw error;
          }
        }),
      );
    // The bucket refills one request a second while the 80 calls run: 60, plus what came back meanwhile (one more
    // for rounding). Counted per process, all 80 would pass.
    const refilled = Math.floor((performance.now() - started) / 1000);
    console.log(`rate limit across two workers and a replica on Redis: ${passed} of 80 calls passed (${refilled} s)`);
    expect(passed).toBeGreaterThanOrEqual(59);
    expect(passed).toBeLessThanOrEqual(61 + refilled);
    expect(new Set(answered)).toEqual(new Set(['1', '2', 'replica']));
    // Every answered call once in PostgreSQL, listed alike by a worker and by the replica.
    for (const url of [workers.url, replica.url]) {
      const listed = async () => {
        const response = await fetch(`${url}/v1/calls?limit=200`, { headers: { authorization: `Bearer ${key}` } });
        return ((await response.json()) as { data: unknown[] }).data.length;
      };
      await expect.poll(listed, { timeout: 10_000 }).toBe(passed);
    }
  });
});
