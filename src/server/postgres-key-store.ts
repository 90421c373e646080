import type { Pool } from 'pg';
import { lazyRequire } from '../internal/lazy-require.ts';
import { migrate, postgresError } from '../internal/postgres-migrations.ts';
import {
  type ApiKeyCheck,
  type ApiKeyInfo,
  displayPrefixOf,
  fromRow,
  INSERT_COLUMNS,
  MAX_ACTIVE_CHILDREN,
  mintKey,
  type StoredKey,
  theOneMatch,
  ValidKeys,
} from './key-material.ts';
import { ADMIN_GRANT, forbidden, type KeyGrant } from './key-scopes.ts';
import type { KeyStore } from './key-store.ts';

const pg = lazyRequire<typeof import('pg')>('pg');
const COLUMNS =
  'id, prefix, name, created_at, revoked_at, scopes, allowed_agents, allowed_models, expires_at, parent_id';
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
    this.#pool = new (pg().Pool)({ connectionString: url, max: 4 });
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
    const parentId = options.parentId ?? null;
    if (parentId !== null) {
      const [{ count } = { count: '0' }] = await this.#rows<{ count: string }>(
        'SELECT count(*) AS count FROM switchyard_api_keys WHERE parent_id = $1 AND revoked_at IS NULL',
        [parentId],
      );
      if (Number(count) >= MAX_ACTIVE_CHILDREN)
        throw forbidden(`this API key has already minted ${count} active keys (the limit); revoke some first`);
    }
    const { key, info, values } = mintKey(name, options.grant ?? ADMIN_GRANT, parentId);
    const placeholders = values.map((_, index) => `$${index + 1}`).join(', ');
    await this.#rows(`INSERT INTO switchyard_api_keys (${INSERT_COLUMNS}) VALUES (${placeholders})`, values);
    return { key, info };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.#rows<StoredKey>(`SELECT ${COLUMNS} FROM switchyard_api_keys ORDER BY created_at, id`)).map(
      fromRow,
    );
  }

  async activeCount(): Promise<number> {
    const [{ count } = { count: '0' }] = await this.#rows<{ count: string }>(
      'SELECT count(*) AS count FROM switchyard_api_keys WHERE revoked_at IS NULL',
    );
    return Number(count);
  }

  async revoke(idOrPrefix: string): Promise<ApiKeyInfo> {
    const matches = await this.#rows<StoredKey>(
      `SELECT ${COLUMNS} FROM switchyard_api_keys WHERE id = $1 OR prefix = $2`,
      [idOrPrefix, displayPrefixOf(idOrPrefix)],
    );
    const key = theOneMatch(matches.map(fromRow), idOrPrefix);
    if (key.revoked_at) return key;
    const revokedAt = new Date().toISOString();
    // The key and every key minted under it, however deep.
    await this.#rows(
      'WITH RECURSIVE tree(id) AS (SELECT $2::text UNION SELECT k.id FROM switchyard_api_keys k JOIN tree ' +
        'ON k.parent_id = tree.id) UPDATE switchyard_api_keys SET revoked_at = $1 ' +
        'WHERE revoked_at IS NULL AND id IN (SELECT id FROM tree)',
      [revokedAt, key.id],
    );
    this.#valid.clear();
    return { ...key, revoked_at: revokedAt };
  }

  async check(presented: string | undefined): Promise<ApiKeyCheck> {
    const digest = this.#valid.digestOf(presented);
    if ('ok' in digest) return digest;
    const cached = this.#valid.cached(digest.cacheKey);
    if (cached) return cached;
    const [row] = await this.#rows<StoredKey & { hash: Uint8Array }>(
      `SELECT hash, ${COLUMNS} FROM switchyard_api_keys WHERE hash = $1`,
      [digest.digest],
    );
    return this.#valid.judge(digest.cacheKey, digest.digest, row);
  }

  async close(): Promise<void> {
    await this.#pool.end();
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
