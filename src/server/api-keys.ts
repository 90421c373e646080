import {
  ancestorsOfAll,
  type LineageRow,
  MAX_KEYS_PER_TENANT,
  mintRefusal,
  tenantRefusal,
} from '../access/key-chain.ts';
import { hasLimits, type KeyLimits, withoutEmpty } from '../access/key-limits.ts';
import type { StorageEngine } from '../storage/engine.ts';
import { locking, queueBehind } from '../storage/engine-sql.ts';
import { SqliteEngine } from '../storage/sqlite-engine.ts';
import { writeRows } from '../storage/write-rows.ts';
import {
  type ApiKeyCheck,
  type ApiKeyInfo,
  displayPrefixOf,
  fromRow,
  INSERT_COLUMNS,
  mintKey,
  type StoredKey,
  theOneMatch,
} from './key-material.ts';
import { ADMIN_GRANT, type KeyGrant } from './key-scopes.ts';
import type { KeyStore } from './key-store.ts';
import {
  ancestors,
  byHash,
  children,
  descendants,
  KEYS_SCHEMA,
  keyOrPrefix,
  keys,
  keysAmong,
  live,
  parentRow,
  setLimits,
} from './keys-table.ts';
import { openDatabase } from './open-database.ts';
import { keyDigest, ValidKeys } from './valid-keys.ts';

export { MAX_ACTIVE_CHILDREN, MAX_KEYS_PER_TENANT } from '../access/key-chain.ts';
export { API_KEY_PREFIX, type ApiKeyCheck, type ApiKeyInfo } from './key-material.ts';

const [KEYS] = KEYS_SCHEMA.tables;

/**
 * API keys for `switchyard serve`, in a table of any engine: the data directory's SQLite file, or PostgreSQL shared
 * by every replica (`PostgresKeyStore`). A key is `sy-` + base64url of 32 random bytes, and only its SHA-256 is
 * stored. A fast hash is the right tool here: a slow password hash protects low-entropy secrets against guessing,
 * and a 256-bit random key cannot be guessed however fast the hash is; a fast hash keeps every authenticated request
 * cheap. A key revoked elsewhere (the CLI, another replica) is refused here once this store's one-second trust in it
 * ends; a key revoked here, at once.
 */
export class ApiKeyStore implements KeyStore {
  readonly #engine: StorageEngine;
  readonly #valid = new ValidKeys();

  readonly #maxKeysPerTenant: number;

  /**
   * The data directory's database file, `:memory:`, or an engine (`openStores`). `maxKeysPerTenant`: the active keys
   * a tenant (a key an admin key minted, and every key under it) may hold, `MAX_KEYS_PER_TENANT` by default.
   */
  constructor(database: string | StorageEngine, options: { maxKeysPerTenant?: number } = {}) {
    this.#maxKeysPerTenant = options.maxKeysPerTenant ?? MAX_KEYS_PER_TENANT;
    this.#engine =
      typeof database === 'string' ? new SqliteEngine(openDatabase(database), 'switchyard serve') : database;
    this.#owned = typeof database === 'string';
    this.#engine.migrateNow?.(KEYS_SCHEMA);
  }

  readonly #owned: boolean;

  /** Keys whose check is held (trusted for a second after a lookup), lapsed ones included until swept. */
  get cachedKeys(): number {
    return this.#valid.size;
  }

  /** Creates or migrates the table (PostgreSQL: before the server listens). */
  ready(): Promise<void> {
    return this.#engine.ready(KEYS_SCHEMA);
  }

  /**
   * Makes a key and stores its hash. The key is returned here once and can never be read back. Without a grant it
   * is an admin key (the CLI's); a key minted by another key names it as `parentId`.
   */
  async create(name?: string, options: { grant?: KeyGrant; parentId?: string } = {}) {
    const grant = options.grant ?? ADMIN_GRANT;
    const parentId = options.parentId;
    await this.ready();
    if (parentId === undefined) {
      const { key, info, values } = mintKey(name, grant, null);
      await writeRows(this.#engine, KEYS!, [rowOf(values)], 'error');
      return { key, info };
    }
    // One transaction: the lineage is read locked (root first, then the parent for update, where rows lock; SQLite's
    // write lock from the start), so a revocation of any of them commits before the read, and is seen, or after the
    // insert, and revokes the new key too; mints under one parent queue, so the count sees every child before.
    return this.#engine.transaction(async (tx) => {
      const above = (await tx.run<LineageRow>((db) => locking(tx.kind, ancestors(db, parentId, 2), 'share', 'k'))).rows;
      const parent = (await tx.run<LineageRow>((db) => locking(tx.kind, parentRow(db, parentId)))).rows;
      const chain = [...parent, ...above.reverse()];
      const count = Number((await tx.run<{ count: number }>(children, { parent: parentId })).rows[0]?.count ?? 0);
      const refusal = mintRefusal(chain, count);
      if (refusal) throw refusal;
      const minted = mintKey(name, grant, parentId, chain);
      const { tenant } = minted.info;
      // A key an admin minted starts a tenant; under it, keys minted and kept without end would grow the table
      // every tenant's lookups share.
      if (tenant !== minted.info.id) {
        // Mints under two keys of one tenant lock no row in common: they queue on the tenant, so each counts the
        // other's key (PostgreSQL; SQLite's write lock and memory already serialise them).
        await queueBehind(tx, `switchyard:tenant-keys:${tenant}`);
        const held = 1 + (await tx.run<{ id: string }>((db) => descendants(db, tenant, 'k', true))).rows.length;
        const full = tenantRefusal(held, this.#maxKeysPerTenant);
        if (full) throw full;
      }
      await writeRows(tx, KEYS!, [rowOf(minted.values)], 'error');
      return { key: minted.key, info: minted.info };
    });
  }

  /**
   * Every key, or those minted under `under` (however deep, not `under` itself): what a key that is not an admin's
   * manages, read without the other tenants' rows.
   */
  async list(options: { under?: string } = {}): Promise<ApiKeyInfo[]> {
    await this.ready();
    const { under } = options;
    const kind = this.#engine.kind;
    const among = under ? await this.descendants(under) : undefined;
    if (among?.length === 0) return [];
    const rows = (await this.#engine.run<StoredKey>(among ? keysAmong(kind, among) : keys(kind))).rows;
    // The keys above `under` are named in each key's lineage, not listed.
    const above = under ? (await this.#engine.run<LineageRow>((db) => ancestors(db, under, 1))).rows : [];
    const lineage = ancestorsOfAll([...rows, ...above]);
    return rows.map((row) => fromRow(row, lineage.get(row.id)));
  }

  /** Every key minted under `id`, however deep (not `id` itself), nearest first. */
  async descendants(id: string): Promise<string[]> {
    await this.ready();
    return (await this.#engine.run<{ id: string }>((db) => descendants(db, id))).rows.map((row) => row.id);
  }

  /** Keys that can be used (not revoked). */
  async activeCount(): Promise<number> {
    await this.ready();
    return Number((await this.#engine.run<{ count: number }>(live)).rows[0]?.count ?? 0);
  }

  /**
   * Revokes by id or display prefix (`sy-Ab3dEf9h`, with or without `sy-`), and every key minted under it, in one
   * transaction. Throws when nothing or several match.
   */
  async revoke(idOrPrefix: string): Promise<ApiKeyInfo> {
    await this.ready();
    const matches = (
      await this.#engine.run<StoredKey>(keyOrPrefix, { id: idOrPrefix, prefix: displayPrefixOf(idOrPrefix) })
    ).rows;
    const match = theOneMatch(
      matches.map((row) => fromRow(row)),
      idOrPrefix,
    );
    const key = fromRow(matches.find((row) => row.id === match.id)!, await this.#chainFrom(match.parent_id));
    const now = new Date().toISOString();
    const revokedAt = await this.#engine.transaction(async (tx) => {
      // The key first: a mint under it (or under any key below it) holds this row, so this waits for it to commit.
      const [row] = (
        await tx.run<{ revoked_at: string }>((db) =>
          db
            .updateTable('api_keys')
            .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
            .where('id', '=', key.id)
            .returning('revoked_at'),
        )
      ).rows;
      // Then every key minted under it until now, locked top down (the order every mint locks in, so none deadlock);
      // swept again when already revoked, for keys left behind by a race before this was atomic.
      const below = (
        await tx.run<{ id: string }>((db) => locking(tx.kind, descendants(db, key.id, 'k'), 'update', 'k'))
      ).rows;
      if (below.length > 0)
        await tx.run((db) =>
          db
            .updateTable('api_keys')
            .set({ revoked_at: now })
            .where(
              'id',
              'in',
              below.map((each) => each.id),
            )
            .where('revoked_at', 'is', null),
        );
      return row?.revoked_at ?? now;
    });
    // Keys under this one cached here are refused at once; elsewhere, once their trust ends, by their lineage.
    this.#valid.forget(key.id);
    return { ...key, revoked_at: revokedAt };
  }

  /**
   * Replaces the key's own limits (`null` or none set: the server's defaults again). Seen here at once, and by other
   * replicas once their one-second trust in the key ends. Throws when no key has the id.
   */
  async updateLimits(id: string, limits: KeyLimits | null): Promise<ApiKeyInfo> {
    await this.ready();
    const stored = hasLimits(limits) ? JSON.stringify(withoutEmpty(limits)) : null;
    await this.#engine.run(setLimits, { id, limits: stored });
    const [row] = (await this.#engine.run<StoredKey>(keyOrPrefix, { id, prefix: id })).rows.filter(
      (match) => match.id === id,
    );
    if (!row) throw new Error(`No API key has the id "${id}".`);
    this.#valid.forget(id);
    return fromRow(row, await this.#chainFrom(row.parent_id));
  }

  /** Looks a presented key up by its hash, then compares the hashes in constant time. */
  async check(presented: string | undefined): Promise<ApiKeyCheck> {
    const digest = keyDigest(presented);
    if ('ok' in digest) return digest;
    return this.checkDigest(digest.cacheKey);
  }

  /** The same verdict from the key's digest (`keyDigest`), for a check made again later without keeping the key. */
  async checkDigest(cacheKey: string): Promise<ApiKeyCheck> {
    const digest = { cacheKey };
    const cached = this.#valid.cached(digest.cacheKey);
    if (cached) return cached;
    const started = this.#valid.lookupStarted();
    await this.ready();
    const bytes = ValidKeys.digestBytes(digest.cacheKey);
    const [row] = (await this.#engine.run<StoredKey & { hash: Uint8Array }>(byHash, { hash: bytes })).rows;
    // A key is refused when any key that minted it is revoked or expired, whatever its own row says.
    const chain = await this.#chainFrom(row?.parent_id ?? null);
    return this.#valid.judge(digest.cacheKey, bytes, row, chain, started);
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#engine.close();
  }

  /** The lineage rows from `parentId` up, nearest first. */
  async #chainFrom(parentId: string | null): Promise<LineageRow[]> {
    if (!parentId) return [];
    return (await this.#engine.run<LineageRow>((db) => ancestors(db, parentId, 1))).rows;
  }
}

function rowOf(values: ReadonlyArray<unknown>): Record<string, unknown> {
  return Object.fromEntries(INSERT_COLUMNS.split(', ').map((column, index) => [column, values[index]]));
}
