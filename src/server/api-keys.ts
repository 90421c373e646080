import type { DatabaseSync, StatementSync } from 'node:sqlite';
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
import { openDatabase } from './open-database.ts';

export { API_KEY_PREFIX, type ApiKeyCheck, type ApiKeyInfo, MAX_ACTIVE_CHILDREN } from './key-material.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  name TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
`;
/** Columns added since the first version; a key stored before them (no scopes) is an admin key, as it was. */
const ADDED_COLUMNS = [
  'scopes TEXT',
  'allowed_agents TEXT',
  'allowed_models TEXT',
  'expires_at TEXT',
  'parent_id TEXT',
  'mcp_tools TEXT',
  'sensitive_data TEXT',
];
const COLUMNS =
  'id, prefix, name, created_at, revoked_at, scopes, allowed_agents, allowed_models, expires_at, parent_id, ' +
  'mcp_tools, sensitive_data';

/**
 * API keys for `switchyard serve`: `sy-` + base64url of 32 random bytes. Only the SHA-256 of a key is stored. A fast
 * hash is the right tool here: a slow password hash protects low-entropy secrets against guessing, and a 256-bit
 * random key cannot be guessed however fast the hash is; a fast hash keeps every authenticated request cheap.
 */
export class ApiKeyStore implements KeyStore {
  readonly #db: DatabaseSync;
  readonly #statements: Record<
    'insert' | 'byHash' | 'all' | 'byIdOrPrefix' | 'revoke' | 'count' | 'children' | 'ancestors' | 'descendants',
    StatementSync
  >;
  readonly #valid = new ValidKeys();

  /** `path` is the data directory's database file, or `:memory:`. */
  constructor(path: string) {
    this.#db = openDatabase(path);
    this.#db.exec(SCHEMA);
    const present = new Set(
      (this.#db.prepare('PRAGMA table_info(api_keys)').all() as Array<{ name: string }>).map((column) => column.name),
    );
    for (const column of ADDED_COLUMNS)
      if (!present.has(column.split(' ')[0]!)) this.#db.exec(`ALTER TABLE api_keys ADD COLUMN ${column}`);
    this.#db.exec('CREATE INDEX IF NOT EXISTS api_keys_parent ON api_keys (parent_id)');
    this.#statements = {
      insert: this.#db.prepare(
        `INSERT INTO api_keys (${INSERT_COLUMNS}) VALUES (${INSERT_COLUMNS.split(',')
          .map(() => '?')
          .join(', ')})`,
      ),
      byHash: this.#db.prepare(`SELECT hash, ${COLUMNS} FROM api_keys WHERE hash = ?`),
      all: this.#db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY rowid`),
      byIdOrPrefix: this.#db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ? OR prefix = ?`),
      // The key and every key minted under it, however deep.
      revoke: this.#db.prepare(
        'UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND id IN (WITH RECURSIVE tree(id) AS ' +
          '(SELECT ? UNION SELECT api_keys.id FROM api_keys JOIN tree ON api_keys.parent_id = tree.id) ' +
          'SELECT id FROM tree)',
      ),
      count: this.#db.prepare('SELECT count(*) AS count FROM api_keys WHERE revoked_at IS NULL'),
      children: this.#db.prepare('SELECT count(*) AS count FROM api_keys WHERE parent_id = ? AND revoked_at IS NULL'),
      ancestors: this.#db.prepare(
        `${ancestorsSql('api_keys', '?')}SELECT ${LINEAGE_COLUMNS} FROM chain ORDER BY depth`,
      ),
      descendants: this.#db.prepare(`${descendantsSql('api_keys', '?')}SELECT id FROM tree ORDER BY depth, id`),
    };
  }

  /**
   * Makes a key and stores its hash. The key is returned here once and can never be read back. Without a grant it
   * is an admin key (the CLI's); a key minted by another key names it as `parentId`.
   */
  create(name?: string, options: { grant?: KeyGrant; parentId?: string } = {}): { key: string; info: ApiKeyInfo } {
    const grant = options.grant ?? ADMIN_GRANT;
    const parentId = options.parentId;
    if (parentId === undefined) {
      const { key, info, values } = mintKey(name, grant, null);
      this.#statements.insert.run(...values);
      return { key, info };
    }
    // The write lock from the start: another process's revocation (one UPDATE of the key and everything under it)
    // commits either before the lineage is read here, and is seen, or after the insert, and revokes the new key.
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const chain = this.#statements.ancestors.all(parentId) as unknown as LineageRow[];
      const { count } = this.#statements.children.get(parentId) as { count: number };
      const refusal = mintRefusal(chain, count);
      if (refusal) throw refusal;
      const minted = mintKey(name, grant, parentId, chain);
      this.#statements.insert.run(...minted.values);
      this.#db.exec('COMMIT');
      return { key: minted.key, info: minted.info };
    } catch (error) {
      // Node before 22.16 has no `isTransaction`: roll back whatever is open, if anything is.
      try {
        this.#db.exec('ROLLBACK');
      } catch {}
      throw error;
    }
  }

  list(): ApiKeyInfo[] {
    const rows = this.#statements.all.all() as unknown as StoredKey[];
    const ancestors = ancestorsOfAll(rows);
    return rows.map((row) => fromRow(row, ancestors.get(row.id)));
  }

  /** Every key minted under `id`, however deep (not `id` itself). */
  descendants(id: string): string[] {
    return (this.#statements.descendants.all(id) as Array<{ id: string }>).map((row) => row.id);
  }

  /** Keys that can be used (not revoked). */
  activeCount(): number {
    return (this.#statements.count.get() as { count: number }).count;
  }

  /**
   * Revokes by id or display prefix (`sy-Ab3dEf9h`, with or without `sy-`), and every key minted under it. Throws when
   * nothing or several match.
   */
  revoke(idOrPrefix: string): ApiKeyInfo {
    const matches = (
      this.#statements.byIdOrPrefix.all(idOrPrefix, displayPrefixOf(idOrPrefix)) as unknown as StoredKey[]
    ).map((row) => fromRow(row, this.#ancestorsOf(row.parent_id)));
    const key = theOneMatch(matches, idOrPrefix);
    // Swept again when already revoked: keys minted under it before revocation won every race are revoked now.
    const revokedAt = new Date().toISOString();
    this.#statements.revoke.run(revokedAt, key.id);
    // Keys under this one cached here are refused at once; elsewhere, once their trust ends, by their lineage.
    this.#valid.clear();
    return { ...key, revoked_at: key.revoked_at ?? revokedAt };
  }

  /** Looks a presented key up by its hash, then compares the hashes in constant time. */
  check(presented: string | undefined): ApiKeyCheck {
    const digest = this.#valid.digestOf(presented);
    if ('ok' in digest) return digest;
    const cached = this.#valid.cached(digest.cacheKey);
    if (cached) return cached;
    const row = this.#statements.byHash.get(digest.digest) as (StoredKey & { hash: Uint8Array }) | undefined;
    // A key is refused when any key that minted it is revoked or expired, whatever its own row says.
    const chain = row?.parent_id ? (this.#statements.ancestors.all(row.parent_id) as unknown as LineageRow[]) : [];
    return this.#valid.judge(digest.cacheKey, digest.digest, row, chain);
  }

  #ancestorsOf(parentId: string | null): LineageRow[] {
    if (!parentId) return [];
    return this.#statements.ancestors.all(parentId) as unknown as LineageRow[];
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}
