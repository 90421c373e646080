import pg from 'pg';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startPostgres } from './postgres.ts';

/**
 * Issue 37: a file's `startPostgres()` is a fresh database on the run's one server (the global setup's), not a
 * server of its own; `halt` and `restart`, which would stop every file's, refuse on it.
 */
const database = await startPostgres();
afterAll(() => database?.stop());

async function currentDatabase(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('SELECT current_database() AS name')).rows[0]!.name;
  } finally {
    await client.end();
  }
}

describe.skipIf(!database)('startPostgres()', () => {
  it('is a database of its own, named after the file, on the server every file shares; stop drops it', async () => {
    const other = (await startPostgres())!;
    onTestFinished(() => other.stop());
    const [ours, theirs] = [new URL(database!.url), new URL(other.url)];
    expect(theirs.host).toBe(ours.host);
    expect(ours.pathname).toMatch(/^\/postgres_[0-9a-f]{12}$/);
    expect(theirs.pathname).not.toBe(ours.pathname);
    expect(await currentDatabase(other.url)).toBe(theirs.pathname.slice(1));
    await other.stop();
    await expect(currentDatabase(other.url)).rejects.toMatchObject({ code: '3D000' });
    expect(await currentDatabase(database!.url)).toBe(ours.pathname.slice(1));
  });

  it('refuses halt and restart, which would stop the shared server, pointing at { own: true }', async () => {
    await expect(database!.halt()).rejects.toThrow(/startPostgres\(\{ own: true \}\)/);
    await expect(database!.restart()).rejects.toThrow(/own: true/);
    expect(await currentDatabase(database!.url)).toMatch(/^postgres_/);
  });
});
