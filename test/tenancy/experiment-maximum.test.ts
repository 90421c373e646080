import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';
import { tenantKey } from './large-calls.ts';
import { chatProbe, duringAttack, expectNotStalled } from './other-tenant.ts';

/**
 * One tenant runs an experiment of the documented maximum's shape (20 versions, scaled to 50 inputs: 1,000 cells,
 * with a budget and reuse on) and waits for it with several `get ?wait_ms`, while another tenant makes calls: the
 * other tenant is answered as usual. On PostgreSQL, two replicas: the run on one, the waits and the other tenant's
 * calls on the other (which polls the store for the waits). And the caps (20 versions, 500 inputs) hold per
 * experiment, however many requests add.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the experiment maximum on PostgreSQL (not installed; CI installs it).');
afterAll(() => postgres?.stop());
const stores = [
  { name: 'SQLite', database: undefined },
  ...(postgres ? [{ name: 'PostgreSQL, two replicas', database: postgres.url }] : []),
];

const VERSIONS = 20;
const INPUTS = 50;
const WAITERS = 16;

type Any = Record<string, any>;

describe.each(stores)('on $name', ({ database }) => {
  /** `runner` runs the experiment; `reader` is where it is waited for (the other replica on PostgreSQL). */
  let runner: TestServer;
  let reader: TestServer;
  const keys = { tenant: '', other: '' };
  beforeAll(async () => {
    runner = await startTestServer(database ? { database } : {});
    reader = database ? await startTestServer({ database }) : runner;
    keys.tenant = (await tenantKey(runner, 'tenant', { scopes: ['chat', 'calls:read:own'] })).key;
    keys.other = (await tenantKey(runner, 'other', { scopes: ['chat'] })).key;
  }, 60_000);
  afterAll(async () => {
    if (reader !== runner) await reader?.stop();
    await runner?.stop();
  });

  async function send(server: TestServer, path: string, body?: unknown): Promise<{ status: number; body: Any }> {
    const response = await api(server, `/v1${path}`, { key: keys.tenant, ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: await jsonOf(response) };
  }

  it(`a run of ${VERSIONS} × ${INPUTS} cells, waited for ${WAITERS} times: the other tenant answered`, async () => {
    const versions = Array.from({ length: VERSIONS }, (_, index) => ({
      label: `v${index}`,
      model: 'gpt-4o-mini',
      temperature: index / 10,
      messages: [{ role: 'user', content: 'Answer {{question}}' }],
    }));
    const inputs = Array.from({ length: INPUTS }, (_, index) => ({ variables: { question: `q${index}` } }));
    const created = await send(runner, '/experiments', { agent_id: 'maximum', budget_usd: 50, versions, inputs });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body;
    // The other tenant calls where the waits are made (on PostgreSQL, the replica that polls the store for them).
    const { result, latency } = await duringAttack({ probe: chatProbe(reader.url, keys.other) }, async () => {
      const started = await send(runner, `/experiments/${id}/run`, { concurrency: 8 });
      expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
      const wait = async () => {
        for (;;) {
          const seen = await send(reader, `/experiments/${id}?wait_ms=60000`);
          expect(seen.status).toBe(200);
          if (seen.body.status !== 'running') return seen.body;
        }
      };
      return Promise.all(Array.from({ length: WAITERS }, wait));
    });
    expectNotStalled(latency);
    for (const experiment of result) {
      expect(experiment.status).toBe('completed');
      expect(experiment.cells).toHaveLength(VERSIONS * INPUTS);
      expect(experiment.summaries.map((summary: Any) => summary.completed)).toEqual(Array(VERSIONS).fill(INPUTS));
    }
  }, 300_000);

  it('the caps hold per experiment: 20 versions and 500 inputs, however many requests add them', async () => {
    const version = (index: number) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `v${index}` }] });
    const input = (index: number) => ({ variables: { n: index } });
    const created = await send(runner, '/experiments', { agent_id: 'caps' });
    const { id } = created.body;
    for (const batch of [0, 1]) {
      const added = await send(runner, `/experiments/${id}/versions`, {
        versions: Array.from({ length: 10 }, (_, index) => version(batch * 10 + index)),
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    const past = await send(runner, `/experiments/${id}/versions`, { versions: [version(20)] });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatchObject({ param: 'versions', code: 'too_many_versions' });

    // Two requests of 300 inputs at once, on either replica: one is added, the other refused whole.
    const batch = (from: number) => Array.from({ length: 300 }, (_, index) => input(from + index));
    const both = await Promise.all([
      send(runner, `/experiments/${id}/inputs`, { inputs: batch(0) }),
      send(reader, `/experiments/${id}/inputs`, { inputs: batch(300) }),
    ]);
    expect(both.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const fill = await send(runner, `/experiments/${id}/inputs`, { inputs: batch(600).slice(0, 200) });
    expect(fill.status, JSON.stringify(fill.body)).toBe(200);
    const over = await send(reader, `/experiments/${id}/inputs`, { inputs: [input(900)] });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ param: 'inputs', code: 'too_many_inputs' });
    const experiment = (await send(reader, `/experiments/${id}`)).body;
    expect([experiment.versions.length, experiment.inputs.length]).toEqual([20, 500]);
  }, 120_000);
});
