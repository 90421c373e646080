import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Experiments on two replicas sharing one real PostgreSQL: made and run on one, read (and waited for) on the other,
 * and run on both at once without a cell called twice. Skipped, saying so, where PostgreSQL is not installed and CI
 * is not set.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the experiment replica test (no PostgreSQL installed; CI installs it).');
let replicas: TestServer[] = [];
beforeAll(async () => {
  if (!postgres) return;
  replicas = await Promise.all([0, 1].map(() => startTestServer({ database: postgres.url })));
}, 60_000);
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await postgres?.stop();
});

const PROMPT = [{ role: 'user', content: 'Say {{word}}' }];
/** Inputs no other test of this file uses: an identical cell of an earlier experiment would be reused, not called. */
const inputs = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => ({ variables: { word: `${prefix}${index}` } }));

describe.skipIf(!postgres)('experiments on replicas (PostgreSQL)', () => {
  it('one replica runs what the other created; the other waits for it and reads the same results', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const created = await api(a, '/v1/experiments', {
      method: 'POST',
      body: {
        agent_id: 'support',
        versions: [
          { model: 'gpt-4o-mini', messages: PROMPT },
          { model: 'gpt-4o', messages: PROMPT },
        ],
        inputs: inputs(5, 'created-on-a-'),
      },
    });
    expect(created.status).toBe(201);
    const { id } = await jsonOf(created);
    expect((await api(b, `/v1/experiments/${id}/run`, { method: 'POST', body: {} })).status).toBeLessThan(300);
    const seen = await jsonOf(await api(a, `/v1/experiments/${id}?wait_ms=20000`));
    expect(seen.status).toBe('completed');
    expect(seen.cells).toHaveLength(10);
    const again = await jsonOf(await api(b, `/v1/experiments/${id}`));
    expect(again.summaries).toEqual(seen.summaries);
    // The cells' calls are in the shared records, tagged with the experiment.
    await Promise.all(replicas.map((replica) => replica.server.gateway.flush()));
    const query = { filter: { metadata: { experiment_id: id } }, aggregates: [{ fn: 'count' }] };
    const count = async () => (await jsonOf(await api(a, '/v1/calls/query', { method: 'POST', body: query }))).data[0];
    await expect.poll(async () => (await count()).count, { timeout: 5000 }).toBe(10);
  });

  it('run on both replicas at once: every cell is called once (claimed in the database)', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const { id } = await jsonOf(
      await api(a, '/v1/experiments', {
        method: 'POST',
        body: {
          agent_id: 'support',
          versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
          inputs: inputs(12, 'run-on-both-'),
        },
      }),
    );
    await Promise.all(
      [a, b].map((replica) =>
        api(replica, `/v1/experiments/${id}/run`, { method: 'POST', body: { concurrency: 4, wait_ms: 20000 } }),
      ),
    );
    const done = await jsonOf(await api(b, `/v1/experiments/${id}?wait_ms=20000`));
    expect(done.status).toBe('completed');
    await Promise.all(replicas.map((replica) => replica.server.gateway.flush()));
    const query = { filter: { metadata: { experiment_id: id } }, aggregates: [{ fn: 'count' }] };
    // Records reach the database in batches: each replica's within a second of its flush.
    const count = async () => (await jsonOf(await api(b, '/v1/calls/query', { method: 'POST', body: query }))).data[0];
    await expect.poll(async () => (await count()).count, { timeout: 5000 }).toBe(12);
  });
});
