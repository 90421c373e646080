import type { ApiKeyCheck, ApiKeyInfo } from './key-material.ts';
import type { KeyGrant } from './key-scopes.ts';

type MaybePromise<T> = T | Promise<T>;

/**
 * Where `serve` keeps its API keys: the data directory's SQLite file (`ApiKeyStore`, synchronous) or PostgreSQL
 * (`PostgresKeyStore`, shared by replicas). Callers await every method.
 */
export interface KeyStore {
  create(
    name?: string,
    options?: { grant?: KeyGrant; parentId?: string },
  ): MaybePromise<{ key: string; info: ApiKeyInfo }>;
  list(): MaybePromise<ApiKeyInfo[]>;
  /** Keys that can be used (not revoked). */
  activeCount(): MaybePromise<number>;
  /** Revokes by id or display prefix, and every key minted under it. */
  revoke(idOrPrefix: string): MaybePromise<ApiKeyInfo>;
  /** A presented key's verdict; a valid key is trusted for a second without asking the store again. */
  check(presented: string | undefined): MaybePromise<ApiKeyCheck>;
  close(): MaybePromise<void>;
}
