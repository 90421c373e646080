import { afterAll, describe, expect, it } from 'vitest';
import { PostgresDeploymentStore } from '../../src/deployments/postgres-store.ts';
import { DeploymentConflictError, DeploymentValidationError, StorageUnavailableError } from '../../src/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { makeDeployment } from './fixtures.ts';

/** The SQLite store's contract on a real PostgreSQL. Skipped, saying so, where PostgreSQL is not installed. */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the PostgreSQL deployment store tests (no PostgreSQL installed).');
const opened: PostgresDeploymentStore[] = [];
const open = () => {
  const store = new PostgresDeploymentStore(postgres!.url);
  opened.push(store);
  return store;
};
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await postgres?.stop();
});

describe.skipIf(!postgres)('PostgresDeploymentStore', () => {
  it('stores, lists newest first per agent, and never overwrites an id', async () => {
    const store = open();
    const first = makeDeployment({ number: 1 });
    const second = makeDeployment({ number: 2 });
    await store.put(first);
    await store.put(second);
    await store.put(makeDeployment({ agent_id: 'other' }));
    await store.put(first); // identical: a no-op
    await expect(store.put({ ...first, description: 'changed' })).rejects.toBeInstanceOf(DeploymentConflictError);
    await expect(store.put({ ...first, number: -1 } as never)).rejects.toBeInstanceOf(DeploymentValidationError);
    expect(await store.get(first.id)).toEqual(first);
    expect(await store.get('support:production#9')).toBeUndefined();
    expect((await store.list({ agent_id: 'support' })).map((item) => item.id)).toEqual([second.id, first.id]);
    expect(await store.list()).toHaveLength(3);
    expect(await store.recentIds('support', 5)).toEqual([second.id, first.id]);
    expect(await store.recentIds('support', 1)).toEqual([second.id]);
  });

  it('two stores (two replicas) putting one number at once: one record, the other writer refused', async () => {
    const [a, b] = [open(), open()];
    const ours = makeDeployment({ agent_id: 'race', number: 1 }, {}, { description: 'replica a' });
    const theirs = { ...ours, description: 'replica b' };
    const results = await Promise.allSettled([a.put(ours), b.put(theirs)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(DeploymentConflictError);
    expect(await a.list({ agent_id: 'race' })).toHaveLength(1);
    // The same version pushed by both at once is stored once, and neither fails.
    const same = makeDeployment({ agent_id: 'race', number: 2 });
    await Promise.all([a.put(same), b.put(same), a.put(same)]);
    expect((await b.list({ agent_id: 'race' })).map((item) => item.id)).toEqual([same.id, ours.id]);
  });

  it('an unreachable database is a 503 storage_unavailable without the password', async () => {
    const store = new PostgresDeploymentStore('postgres://user:s3cretpass@127.0.0.1:1/db');
    const error = await store.get('support:production#1').catch((thrown: unknown) => thrown);
    await store.close();
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(String((error as Error).message)).not.toContain('s3cretpass');
  });
});
