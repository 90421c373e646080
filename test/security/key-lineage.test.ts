import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import type { KeyStore } from '../../src/server/key-store.ts';
import { PostgresKeyStore } from '../../src/server/postgres-key-store.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * A key's lineage on both stores: `ancestors` (nearest first) on what `create`, `check` and `list` return,
 * `descendants` however deep, and a key refused whenever a key above it is revoked or expired, even when its own
 * row says otherwise (rows left by the race before minting checked the lineage).
 */
const minter: KeyGrant = {
  scopes: ['chat', 'models', 'keys:create'],
  allowed_agents: null,
  allowed_models: null,
  expires_at: null,
};

/** `sql` run on the store's table directly (`$1`… placeholders), as another writer of the database would. */
type Write = (sql: string, values: string[]) => Promise<void>;

function lineageTests(open: () => Promise<{ store: KeyStore; write: Write; table: string }>): void {
  it('ancestors nearest first on create, check and list; descendants however deep', async () => {
    const { store } = await open();
    const root = await store.create('root');
    expect(root.info.ancestors).toEqual([]);
    const child = await store.create('child', { grant: minter, parentId: root.info.id });
    const grandchild = await store.create('grandchild', { grant: minter, parentId: child.info.id });
    const sibling = await store.create('sibling', { grant: minter, parentId: root.info.id });
    expect(grandchild.info.ancestors).toEqual([child.info.id, root.info.id]);
    const checked = await store.check(grandchild.key);
    expect(checked).toMatchObject({ ok: true, key: { ancestors: [child.info.id, root.info.id] } });
    const listed = new Map((await store.list()).map((key) => [key.id, key.ancestors]));
    expect(listed.get(grandchild.info.id)).toEqual([child.info.id, root.info.id]);
    expect(listed.get(root.info.id)).toEqual([]);
    expect([...(await store.descendants(root.info.id))].sort()).toEqual(
      [child.info.id, grandchild.info.id, sibling.info.id].sort(),
    );
    expect(await store.descendants(child.info.id)).toEqual([grandchild.info.id]);
    expect(await store.descendants(grandchild.info.id)).toEqual([]);
  });

  it('refuses a key under a revoked or expired ancestor, and minting under it; a re-revoke sweeps it', async () => {
    const { store, write, table } = await open();
    const root = await store.create('root', { grant: minter });
    const child = await store.create('child', { grant: minter, parentId: root.info.id });
    const grandchild = await store.create('grandchild', { grant: minter, parentId: child.info.id });
    // Only the root's row revoked: what the old race left (children minted in the trust window, never revoked).
    await write(`UPDATE ${table} SET revoked_at = $1 WHERE id = $2`, [new Date().toISOString(), root.info.id]);
    expect(await store.check(grandchild.key)).toEqual({ ok: false, reason: 'revoked' });
    await expect(Promise.resolve().then(() => store.create('more', { parentId: child.info.id }))).rejects.toThrow(
      /revoked/,
    );
    await store.revoke(root.info.id);
    const rows = await store.list();
    expect(rows.filter((row) => row.revoked_at === null).map((row) => row.id)).not.toContain(grandchild.info.id);

    const other = await store.create('other', { grant: minter });
    const under = await store.create('under', { grant: minter, parentId: other.info.id });
    await write(`UPDATE ${table} SET expires_at = $1 WHERE id = $2`, ['2001-01-01T00:00:00.000Z', other.info.id]);
    expect(await store.check(under.key)).toEqual({ ok: false, reason: 'expired' });
    await expect(Promise.resolve().then(() => store.create('more', { parentId: under.info.id }))).rejects.toThrow(
      /expired/,
    );
  });
}

describe('key lineage (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-lineage-'));
  const stores: Array<{ close(): unknown }> = [];
  afterAll(() => {
    for (const store of stores) store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let count = 0;
  lineageTests(async () => {
    const path = join(dir, `keys-${count++}.sqlite`);
    const store = new ApiKeyStore(path);
    const db = new DatabaseSync(path);
    stores.push(store, db);
    const write: Write = async (sql, values) => {
      db.prepare(sql.replaceAll(/\$\d/g, '?')).run(...values);
    };
    return { store, write, table: 'api_keys' };
  });
});

const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: key lineage on PostgreSQL (no PostgreSQL installed; CI installs it).');

describe.skipIf(!postgres)('key lineage (PostgreSQL)', () => {
  const stores: Array<{ close(): Promise<unknown> }> = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    await postgres?.stop();
  });
  lineageTests(async () => {
    const store = new PostgresKeyStore(postgres!.url);
    await store.ready();
    const pool = new pg.Pool({ connectionString: postgres!.url, max: 1 });
    // The server stopping after the test may still reach a connection that is ending: not a failure of the test.
    pool.on('error', () => {});
    stores.push(store, { close: () => pool.end() });
    const write: Write = async (sql, values) => {
      await pool.query(sql, values);
    };
    return { store, write, table: 'switchyard_api_keys' };
  });
});
