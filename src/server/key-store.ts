import type { KeyLimits } from '../access/key-limits.ts';
import type { ApiKeyCheck, ApiKeyInfo } from './key-material.ts';
import type { KeyGrant } from './key-scopes.ts';

type MaybePromise<T> = T | Promise<T>;

/**
 * Where `serve` keeps its API keys: the data directory's SQLite file (`ApiKeyStore`, synchronous) or PostgreSQL
 * (`PostgresKeyStore`, shared by replicas). Callers await every method.
 */
export interface KeyStore {
  /** A key; under `parentId` only while that key and all its ancestors are live and it has room for a child. */
  create(
    name?: string,
    options?: { grant?: KeyGrant; parentId?: string },
  ): MaybePromise<{ key: string; info: ApiKeyInfo }>;
  /** Every key, or those minted under `under`, however deep (not `under` itself). */
  list(options?: { under?: string }): MaybePromise<ApiKeyInfo[]>;
  /** Keys that can be used (not revoked). */
  activeCount(): MaybePromise<number>;
  /** The ids of every key minted under `id`, however deep, nearest first; not `id` itself. */
  descendants(id: string): MaybePromise<string[]>;
  /** Replaces a key's own limits (`null`: the server's defaults); refused by no rule here (the callers check). */
  updateLimits(id: string, limits: KeyLimits | null): MaybePromise<ApiKeyInfo>;
  /** Revokes by id or display prefix, and every key minted under it, in one transaction. */
  revoke(idOrPrefix: string): MaybePromise<ApiKeyInfo>;
  /**
   * A presented key's verdict, refused when it or any key that minted it is revoked or expired; a valid key (its
   * `ancestors` filled) is trusted for a second without asking the store again.
   */
  check(presented: string | undefined): MaybePromise<ApiKeyCheck>;
  /** `check` of a key by its digest (`keyDigest`): what later checks keep instead of the key. */
  checkDigest(digest: string): MaybePromise<ApiKeyCheck>;
  close(): MaybePromise<void>;
}
