import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ADMIN_GRANT, forbidden, type KeyGrant } from './key-scopes.ts';
import { openDatabase } from './open-database.ts';

export const API_KEY_PREFIX = 'sy-';
/** Characters after `sy-` shown to tell keys apart (`sy-Ab3dEf9h…`); 48 bits, never enough to guess the key. */
const DISPLAY_PREFIX_LENGTH = 8;
/**
 * How long a key found valid is trusted without asking the database again. A key revoked by this process stops
 * working at once; one revoked by another process (`switchyard keys revoke` while the server runs) within this time.
 */
const VALID_KEY_TTL_MS = 1_000;

/** Active keys one key may have minted: an agent handed a key cannot mint without bound. */
export const MAX_ACTIVE_CHILDREN = 100;

/** What is stored about a key: never the key itself. */
export interface ApiKeyInfo extends KeyGrant {
  id: string;
  name: string | null;
  /** `sy-` and the first 8 characters of the key, for listings and `keys revoke`. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** The key that minted this one (over MCP); revoking it revokes this one. `null` for keys made with the CLI. */
  parent_id: string | null;
}

export type ApiKeyCheck =
  | { ok: true; key: ApiKeyInfo }
  | { ok: false; reason: 'missing' | 'invalid' | 'revoked' | 'expired' };

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
];
const COLUMNS =
  'id, prefix, name, created_at, revoked_at, scopes, allowed_agents, allowed_models, expires_at, parent_id';

/**
 * API keys for `switchyard serve`: `sy-` + base64url of 32 random bytes. Only the SHA-256 of a key is stored. A fast
 * hash is the right tool here: a slow password hash protects low-entropy secrets against guessing, and a 256-bit
 * random key cannot be guessed however fast the hash is; a fast hash keeps every authenticated request cheap.
 */
export class ApiKeyStore {
  readonly #db: DatabaseSync;
  readonly #statements: Record<
    'insert' | 'byHash' | 'all' | 'byIdOrPrefix' | 'revoke' | 'count' | 'children',
    StatementSync
  >;
  /** Keys found valid, by the base64 of their hash (never the key itself), until `expires` (ms). */
  readonly #valid = new Map<string, { key: ApiKeyInfo; expires: number }>();

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
        'INSERT INTO api_keys (id, hash, prefix, name, created_at, scopes, allowed_agents, allowed_models, ' +
          'expires_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
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
    };
  }

  /**
   * Makes a key and stores its hash. The key is returned here once and can never be read back. Without a grant it
   * is an admin key (the CLI's); a key minted by another key names it as `parentId`.
   */
  create(name?: string, options: { grant?: KeyGrant; parentId?: string } = {}): { key: string; info: ApiKeyInfo } {
    const grant = options.grant ?? ADMIN_GRANT;
    const parentId = options.parentId ?? null;
    if (parentId !== null) {
      const { count } = this.#statements.children.get(parentId) as { count: number };
      if (count >= MAX_ACTIVE_CHILDREN)
        throw forbidden(`this API key has already minted ${count} active keys (the limit); revoke some first`);
    }
    const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const info: ApiKeyInfo = {
      id: `key_${randomUUID().replaceAll('-', '')}`,
      name: name?.trim() || null,
      prefix: key.slice(0, API_KEY_PREFIX.length + DISPLAY_PREFIX_LENGTH),
      created_at: new Date().toISOString(),
      revoked_at: null,
      parent_id: parentId,
      ...grant,
    };
    this.#statements.insert.run(
      info.id,
      hashKey(key),
      info.prefix,
      info.name,
      info.created_at,
      JSON.stringify(grant.scopes),
      grant.allowed_agents && JSON.stringify(grant.allowed_agents),
      grant.allowed_models && JSON.stringify(grant.allowed_models),
      grant.expires_at,
      parentId,
    );
    return { key, info };
  }

  list(): ApiKeyInfo[] {
    return (this.#statements.all.all() as unknown as StoredKey[]).map(fromRow);
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
    const prefix = idOrPrefix.startsWith(API_KEY_PREFIX) ? idOrPrefix : `${API_KEY_PREFIX}${idOrPrefix}`;
    const matches = (this.#statements.byIdOrPrefix.all(idOrPrefix, prefix) as unknown as StoredKey[]).map(fromRow);
    if (matches.length === 0) throw new Error(`No API key has the id or prefix "${idOrPrefix}".`);
    if (matches.length > 1)
      throw new Error(
        `Several API keys have the prefix "${idOrPrefix}": revoke by id (${matches.map((key) => key.id).join(', ')}).`,
      );
    const key = matches[0]!;
    if (key.revoked_at) return key;
    const revokedAt = new Date().toISOString();
    this.#statements.revoke.run(revokedAt, key.id);
    // Children of a key revoked before they were cached here are refused by their own row.
    this.#valid.clear();
    return { ...key, revoked_at: revokedAt };
  }

  /** Looks a presented key up by its hash, then compares the hashes in constant time. */
  check(presented: string | undefined): ApiKeyCheck {
    if (!presented) return { ok: false, reason: 'missing' };
    // Anything longer than a key cannot be one; no need to hash a megabyte header.
    if (!presented.startsWith(API_KEY_PREFIX) || presented.length > 100) return { ok: false, reason: 'invalid' };
    const cacheKey = hash('sha256', presented, 'base64');
    // A monotonic clock: a wall-clock step back must not stretch how long a key stays trusted.
    const now = performance.now();
    const cached = this.#valid.get(cacheKey);
    if (cached && cached.expires > now) return { ok: true, key: cached.key };
    const digest = Buffer.from(cacheKey, 'base64');
    const row = this.#statements.byHash.get(digest) as (StoredKey & { hash: Uint8Array }) | undefined;
    if (!row || row.hash.length !== digest.length || !timingSafeEqual(row.hash, digest))
      return { ok: false, reason: 'invalid' };
    if (row.revoked_at) {
      this.#valid.delete(cacheKey);
      return { ok: false, reason: 'revoked' };
    }
    const { hash: _hash, ...stored } = row;
    const info = fromRow(stored);
    if (info.expires_at !== null && Date.parse(info.expires_at) <= Date.now()) return { ok: false, reason: 'expired' };
    // Only valid keys are remembered (as many as there are keys), so random invalid ones cannot grow the map.
    this.#valid.set(cacheKey, { key: info, expires: now + VALID_KEY_TTL_MS });
    return { ok: true, key: info };
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

/** A row as stored: the grant's lists as JSON text, `scopes` null for keys from before scopes (admin keys). */
type StoredKey = Omit<ApiKeyInfo, 'scopes' | 'allowed_agents' | 'allowed_models'> & {
  scopes: string | null;
  allowed_agents: string | null;
  allowed_models: string | null;
};

function fromRow(row: StoredKey): ApiKeyInfo {
  return {
    ...row,
    scopes: row.scopes === null ? [...ADMIN_GRANT.scopes] : JSON.parse(row.scopes),
    allowed_agents: row.allowed_agents === null ? null : JSON.parse(row.allowed_agents),
    allowed_models: row.allowed_models === null ? null : JSON.parse(row.allowed_models),
    expires_at: row.expires_at ?? null,
    parent_id: row.parent_id ?? null,
  };
}

function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}
