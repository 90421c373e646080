import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Two `serve` processes' worth (two servers, two data directories) on one real PostgreSQL: the records of both are
 * in one `/v1/calls`, and they share the API keys. Skipped, saying so, where PostgreSQL is not installed and CI is
 * not set.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the replica test (no PostgreSQL installed; CI installs it).');
let replicas: TestServer[] = [];
beforeAll(async () => {
  if (!postgres) return;
  replicas = await Promise.all([0, 1].map(() => startTestServer({ database: postgres.url })));
}, 60_000);
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await postgres?.stop();
});

describe.skipIf(!postgres)('serve --database postgres://', () => {
  it('both replicas write their calls to the one database, and each lists them all', async () => {
    const trace = `trace-${Date.now()}`;
    for (const [index, replica] of replicas.entries()) {
      const response = await api(replica, '/v1/chat/completions', {
        method: 'POST',
        body: {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `from replica ${index}` }],
          metadata: { trace_id: trace },
        },
      });
      expect(response.status).toBe(200);
    }
    // Each replica writes its records in batches (within a second); a replica's /v1/calls flushes only its own.
    await Promise.all(replicas.map((replica) => replica.server.gateway.flush()));
    for (const replica of replicas) {
      const listed = await jsonOf(await api(replica, `/v1/calls?trace_id=${trace}`));
      expect(listed.data).toHaveLength(2);
      const workflow = await jsonOf(await api(replica, `/v1/workflows/${trace}`));
      expect(workflow.calls).toHaveLength(2);
    }
  });

  it('keys are shared: made on one replica, they work on the other; revoked, refused by it within 1 s', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const { key, info } = await a.server.keys.create('shared');
    expect((await api(b, '/v1/deployments', { key })).status).toBe(200);
    await a.server.keys.revoke(info.id);
    const revokedAt = performance.now();
    let status = 200;
    while (status !== 401 && performance.now() - revokedAt < 900) {
      status = (await api(b, '/v1/deployments', { key })).status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(`revocation seen by the other replica after ${Math.round(performance.now() - revokedAt)} ms`);
    // The other replica trusts a key it found valid for 0.8 s: from then on (well within 1 s) it is refused.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 850 - (performance.now() - revokedAt))));
    expect((await api(b, '/v1/deployments', { key })).status).toBe(401);
  });

  it('a URL with a password never shows it in an error', async () => {
    const error = await startTestServer({ database: 'postgres://user:s3cretpass@127.0.0.1:1/db' }).catch(
      (thrown: unknown) => thrown,
    );
    expect(String((error as Error).message)).not.toContain('s3cretpass');
  });
});
