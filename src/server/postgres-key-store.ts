import type { Pool, PoolClient } from 'pg';
import { lazyRequire } from '../internal/lazy-require.ts';
import { FAIL_FAST_POOL, migrate, postgresError } from '../internal/postgres-migrations.ts';
import {
  type ApiKeyCheck,
  type ApiKeyInfo,
  ancestorsOfAll,
  ancestorsSql,
  descendantsSql,
  displayPrefixOf,
  fromRow,
  INSERT_COLUMNS,
  LINEAGE_COLUMNS,
  type LineageRow,
  mintKey,
  mintRefusal,
  type StoredKey,
  theOneMatch,
  ValidKeys,
} from './key-material.ts';
import { ADMIN_GRANT, type KeyGrant } from './key-scopes.ts';
import type { KeyStore } from './key-store.ts';
import { HttpError } from './responses.ts';

const pg = lazyRequire<typeof import('pg')>('pg');
const COLUMNS =
  'id, prefix, name, created_at, revoked_at, scopes, allowed_agents, allowed_models, expires_at, parent_id, ' +
  'mcp_tools, sensitive_data';
const TABLE = 'switchyard_api_keys';
const INSERT = `INSERT INTO ${TABLE} (${INSERT_COLUMNS}) VALUES (${INSERT_COLUMNS.split(',')
  .map((_, index) => `$${index + 1}`)
  .join(', ')})`;
const LINEAGE = LINEAGE_COLUMNS.split(', ')
  .map((column) => `k.${column}`)
  .join(', ');
/** The ancestors above the parent `$1`, root first, share-locked: a revocation of any of them waits, or is seen. */
const LOCK_ABOVE =
  `${ancestorsSql(TABLE, '$1')}SELECT ${LINEAGE} FROM ${TABLE} k JOIN chain ON k.id = chain.id ` +
  'WHERE chain.depth > 1 ORDER BY chain.depth DESC FOR SHARE OF k';
/** The keys under `$1`, top down (the order every revocation and mint locks in, so none deadlock), locked. */
const LOCK_BELOW =
  `${descendantsSql(TABLE, '$1')}SELECT k.id FROM ${TABLE} k JOIN tree ON k.id = tree.id ` +
  'ORDER BY tree.depth, k.id FOR UPDATE OF k';
const MIGRATIONS = [
  {
    version: 1,
    sql: `
CREATE TABLE switchyard_api_keys (
  id TEXT PRIMARY KEY,
  hash BYTEA NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  name TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  scopes TEXT,
  allowed_agents TEXT,
  allowed_models TEXT,
  expires_at TEXT,
  parent_id TEXT
);
CREATE INDEX switchyard_api_keys_parent ON switchyard_api_keys (parent_id);`,
  },
  // The MCP tools a key reaches (`src/access/mcp-tools.ts`); `NULL` for the keys before it: the default.
  { version: 2, sql: 'ALTER TABLE switchyard_api_keys ADD COLUMN mcp_tools TEXT;' },
  // What a key's calls do with sensitive data (`src/guardrails/`); `NULL` for the keys before it: the gateway's.
  { version: 3, sql: 'ALTER TABLE switchyard_api_keys ADD COLUMN sensitive_data TEXT;' },
];

/**
 * API keys in PostgreSQL, shared by every replica of `serve` (`--database`): the same keys, hashes and lineage as
 * the SQLite store. A key revoked on one replica is refused by the others once their one-second trust in it ends.
 */
export class PostgresKeyStore implements KeyStore {
  readonly #pool: Pool;
  readonly #valid = new ValidKeys();
  #ready: Promise<void> | undefined;

  constructor(url: string) {
    // A hung server is a 503 within a second or two, not a hang (`FAIL_FAST_POOL`); waiting for one of the pool's
    // connections behind a burst of mints may take a little longer than a single query.
    this.#pool = new (pg().Pool)({ connectionString: url, max: 8, ...FAIL_FAST_POOL, connectionTimeoutMillis: 2_000 });
    this.#pool.on('error', () => {});
  }

  ready(): Promise<void> {
    this.#ready ??= migrate(this.#pool, 'keys', MIGRATIONS).catch((error: unknown) => {
      this.#ready = undefined;
      throw postgresError(error);
    });
    return this.#ready;
  }

  async create(name?: string, options: { grant?: KeyGrant; parentId?: string } = {}) {
    const grant = options.grant ?? ADMIN_GRANT;
    const parentId = options.parentId;
    if (parentId === undefined) {
      const { key, info, values } = mintKey(name, grant, null);
      await this.#rows(INSERT, values);
      return { key, info };
    }
    return this.#transaction(async (client) => {
      // Root first, then the parent for update: mints under one parent queue here, so the count below (a new
      // snapshot once the lock is held) sees every child committed before; a revocation holds or waits for these.
      const above = (await client.query<LineageRow>(LOCK_ABOVE, [parentId])).rows.reverse();
      const parent = (
        await client.query<LineageRow>(`SELECT ${LINEAGE_COLUMNS} FROM ${TABLE} WHERE id = $1 FOR UPDATE`, [parentId])
      ).rows;
      const chain = [...parent, ...above];
      const [{ count } = { count: '0' }] = (
        await client.query<{ count: string }>(
          `SELECT count(*) AS count FROM ${TABLE} WHERE parent_id = $1 AND revoked_at IS NULL`,
          [parentId],
        )
      ).rows;
      const refusal = mintRefusal(chain, Number(count));
      if (refusal) throw refusal;
      const minted = mintKey(name, grant, parentId, chain);
      await client.query(INSERT, minted.values);
      return { key: minted.key, info: minted.info };
    });
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.#rows<StoredKey>(`SELECT ${COLUMNS} FROM ${TABLE} ORDER BY created_at, id`);
    const ancestors = ancestorsOfAll(rows);
    return rows.map((row) => fromRow(row, ancestors.get(row.id)));
  }

  /** Every key minted under `id`, however deep (not `id` itself). */
  async descendants(id: string): Promise<string[]> {
    const rows = await this.#rows<{ id: string }>(
      `${descendantsSql(TABLE, '$1')}SELECT id FROM tree ORDER BY depth, id`,
      [id],
    );
    return rows.map((row) => row.id);
  }

  async activeCount(): Promise<number> {
    const [{ count } = { count: '0' }] = await this.#rows<{ count: string }>(
      'SELECT count(*) AS count FROM switchyard_api_keys WHERE revoked_at IS NULL',
    );
    return Number(count);
  }

  async revoke(idOrPrefix: string): Promise<ApiKeyInfo> {
    const matches = await this.#rows<StoredKey>(`SELECT ${COLUMNS} FROM ${TABLE} WHERE id = $1 OR prefix = $2`, [
      idOrPrefix,
      displayPrefixOf(idOrPrefix),
    ]);
    const match = theOneMatch(
      matches.map((row) => fromRow(row)),
      idOrPrefix,
    );
    const key = fromRow(matches.find((row) => row.id === match.id)!, await this.#chainFrom(match.parent_id));
    const now = new Date().toISOString();
    const revokedAt = await this.#transaction(async (client) => {
      // The key first: a mint under it (or under any key below it) holds this row, so this waits for it to commit.
      const [row] = (
        await client.query<{ revoked_at: string }>(
          `UPDATE ${TABLE} SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING revoked_at`,
          [now, key.id],
        )
      ).rows;
      // Then, in new statements (so a new snapshot, under READ COMMITTED), every key minted under it until now;
      // swept again when already revoked, for keys left behind by a race before this was atomic.
      const below = (await client.query<{ id: string }>(LOCK_BELOW, [key.id])).rows.map((each) => each.id);
      await client.query(`UPDATE ${TABLE} SET revoked_at = $1 WHERE id = ANY($2::text[]) AND revoked_at IS NULL`, [
        now,
        below,
      ]);
      return row?.revoked_at ?? now;
    });
    this.#valid.clear();
    return { ...key, revoked_at: revokedAt };
  }

  async check(presented: string | undefined): Promise<ApiKeyCheck> {
    const digest = this.#valid.digestOf(presented);
    if ('ok' in digest) return digest;
    const cached = this.#valid.cached(digest.cacheKey);
    if (cached) return cached;
    const [row] = await this.#rows<StoredKey & { hash: Uint8Array }>(
      `SELECT hash, ${COLUMNS} FROM ${TABLE} WHERE hash = $1`,
      [digest.digest],
    );
    // A key is refused when any key that minted it is revoked or expired, whatever its own row says.
    const chain = await this.#chainFrom(row?.parent_id ?? null);
    return this.#valid.judge(digest.cacheKey, digest.digest, row, chain);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /** The lineage rows from `parentId` up, nearest first. */
  async #chainFrom(parentId: string | null): Promise<LineageRow[]> {
    if (!parentId) return [];
    return this.#rows<LineageRow>(`${ancestorsSql(TABLE, '$1')}SELECT ${LINEAGE_COLUMNS} FROM chain ORDER BY depth`, [
      parentId,
    ]);
  }

  /** `run` in one transaction (READ COMMITTED), rolled back on any error; refusals (403s) pass through as they are. */
  async #transaction<T>(run: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw postgresError(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await run(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back is dropped, not handed to the next caller.
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw error instanceof HttpError ? error : postgresError(error);
    } finally {
      client.release(broken);
    }
  }

  async #rows<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
    await this.ready();
    try {
      return (await this.#pool.query(text, values)).rows as Row[];
    } catch (error) {
      throw postgresError(error);
    }
  }
}
