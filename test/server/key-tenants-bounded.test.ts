import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { PostgresKeyStore } from '../../src/server/postgres-key-store.ts';
import { SqliteEngine } from '../../src/storage/sqlite-engine.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * What one tenant's keys cost the others: a key that mints keys reads and grows its own part of the table only.
 */
const minter: KeyGrant = {
  scopes: ['chat', 'keys:create'],
  allowed_agents: null,
  allowed_models: null,
  expires_at: null,
};

let engine: SqliteEngine;
afterEach(() => engine?.closeNow());

/** A store whose queries' answers are kept, to see which rows a call read. */
function watchedStore() {
  engine = new SqliteEngine(':memory:');
  const read: unknown[] = [];
  const watched = new Proxy(engine, {
    get(target, name) {
      if (name === 'run')
        return async (...args: Parameters<SqliteEngine['run']>) => {
          const result = await target.run(...args);
          read.push(...result.rows);
          return result;
        };
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: new ApiKeyStore(watched), read };
}

describe("a tenant's listing", () => {
  it("reads its own keys and the chain above them, never another tenant's rows", async () => {
    const { store, read } = watchedStore();
    const admin = await store.create('admin');
    const alpha = await store.create('alpha', { grant: minter, parentId: admin.info.id });
    const beta = await store.create('beta', { grant: minter, parentId: admin.info.id });
    const alphaChild = await store.create('alpha child', { grant: minter, parentId: alpha.info.id });
    const alphaGrandchild = await store.create('alpha grandchild', { parentId: alphaChild.info.id });
    const betas = new Set([beta.info.id]);
    for (let index = 0; index < 5; index++)
      betas.add((await store.create(`beta ${index}`, { parentId: beta.info.id })).info.id);
    read.length = 0;
    const listed = await store.list({ under: alpha.info.id });
    expect(listed.map((key) => key.name)).toEqual(['alpha child', 'alpha grandchild']);
    expect(listed[1]).toMatchObject({
      ancestors: [alphaChild.info.id, alpha.info.id, admin.info.id],
      tenant: alpha.info.id,
    });
    const ids = read.map((row) => (row as { id: string }).id);
    expect(ids.filter((id) => betas.has(id))).toEqual([]);
    expect(read.length).toBeLessThanOrEqual(6);
    void alphaGrandchild;
  });
});

describe("a tenant's active keys", () => {
  it('are capped: a mint past the limit is refused, and a revocation makes room', async () => {
    const { store } = watchedStore();
    const admin = await store.create('admin');
    const tenant = await store.create('tenant', { grant: minter, parentId: admin.info.id });
    const limited = new ApiKeyStore(engine, { maxKeysPerTenant: 12 });
    const teams = await Promise.all(
      [0, 1].map(async (index) => limited.create(`team ${index}`, { grant: minter, parentId: tenant.info.id })),
    );
    // The tenant's root and its two teams: 3 of 12; nine more fit, under either team.
    const made = [];
    for (let index = 0; index < 9; index++)
      made.push(await limited.create(`agent ${index}`, { parentId: teams[index % 2]!.info.id }));
    await expect(limited.create('one too many', { parentId: teams[0]!.info.id })).rejects.toThrow(
      /tenant.*12 active keys/,
    );
    // Another tenant is not held by this one's count.
    const other = await limited.create('other tenant', { grant: minter, parentId: admin.info.id });
    await expect(limited.create('its first', { parentId: other.info.id })).resolves.toBeDefined();
    await limited.revoke(made[0]!.info.id);
    await expect(limited.create('room again', { parentId: teams[1]!.info.id })).resolves.toBeDefined();
  });
});

const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the tenant bounds on PostgreSQL (no PostgreSQL installed; CI installs it).');
afterAll(async () => {
  await postgres?.stop();
});

describe.skipIf(!postgres)('on PostgreSQL', () => {
  it("a tenant's listing and its cap, the same", async () => {
    const store = new PostgresKeyStore(postgres!.url, { maxKeysPerTenant: 4 });
    try {
      await store.ready();
      const admin = await store.create('admin');
      const tenant = await store.create('tenant', { grant: minter, parentId: admin.info.id });
      const other = await store.create('other', { grant: minter, parentId: admin.info.id });
      await store.create('elsewhere', { parentId: other.info.id });
      const team = await store.create('team', { grant: minter, parentId: tenant.info.id });
      const first = await store.create('agent 1', { parentId: team.info.id });
      await store.create('agent 2', { parentId: tenant.info.id });
      await expect(store.create('one too many', { parentId: team.info.id })).rejects.toThrow(/4 active keys/);
      await store.revoke(first.info.id);
      await store.create('room again', { parentId: team.info.id });
      const listed = await store.list({ under: tenant.info.id });
      expect(listed.map((key) => [key.name, key.revoked_at === null])).toEqual([
        ['team', true],
        ['agent 1', false],
        ['agent 2', true],
        ['room again', true],
      ]);
      expect(listed[3]).toMatchObject({
        ancestors: [team.info.id, tenant.info.id, admin.info.id],
        tenant: tenant.info.id,
      });
    } finally {
      await store.close();
    }
  });

  it('the cap holds against mints under six teams of one tenant at once (each team locks only itself)', async () => {
    const store = new PostgresKeyStore(postgres!.url, { maxKeysPerTenant: 8 });
    try {
      await store.ready();
      const admin = await store.create('admin');
      for (let round = 0; round < 3; round++) {
        const tenant = await store.create(`racing tenant ${round}`, { grant: minter, parentId: admin.info.id });
        const teams: Array<{ info: { id: string } }> = [];
        for (let team = 0; team < 6; team++)
          teams.push(await store.create(`team ${team}`, { grant: minter, parentId: tenant.info.id }));
        // The root and six teams: 7 of 8. Twelve mints at once, two under each team: one may pass.
        const mints = await Promise.allSettled(
          Array.from({ length: 12 }, (_, n) => store.create(`agent ${n}`, { parentId: teams[n % 6]!.info.id })),
        );
        const refusals = mints.flatMap((mint) => (mint.status === 'rejected' ? [String(mint.reason)] : []));
        expect(
          refusals.every((reason) => /tenant has 8 active keys/.test(reason)),
          refusals.join('\n'),
        ).toBe(true);
        const live = (await store.list({ under: tenant.info.id })).filter((key) => key.revoked_at === null);
        expect(live).toHaveLength(7);
      }
    } finally {
      await store.close();
    }
  });
});
