import { hash, timingSafeEqual } from 'node:crypto';
import { type LineageRow, lineageRefusal } from '../access/key-chain.ts';
import { SweptMap } from '../internal/swept-map.ts';
import { API_KEY_PREFIX, type ApiKeyCheck, type ApiKeyInfo, fromRow, type StoredKey } from './key-material.ts';

/**
 * How long a key found valid is trusted without asking the database again: a key revoked by this process stops
 * working at once; one revoked by another process (the CLI, another replica) within 0.8 s, so within a second.
 */
const VALID_KEY_TTL_MS = 800;
/** Forgotten key ids kept for lookups in flight: more than can be forgotten during one lookup. */
const FORGETS_KEPT = 1024;

/**
 * A presented key's digest (SHA-256, base64): what is kept of it (the valid-key cache's index, a later re-check's
 * proof), never the key; or why it cannot be a key (missing, or not of a key's form). A cached key needs no bytes
 * (`digestBytes` decodes them for a lookup): most calls decode nothing.
 */
export function keyDigest(presented: string | undefined): { cacheKey: string } | ApiKeyCheck {
  if (!presented) return { ok: false, reason: 'missing' };
  // Anything longer than a key cannot be one; no need to hash a megabyte header.
  if (!presented.startsWith(API_KEY_PREFIX) || presented.length > 100) return { ok: false, reason: 'invalid' };
  return { cacheKey: hash('sha256', presented, 'base64') };
}

/**
 * Keys found valid, by the base64 of their hash (never the key itself), for `VALID_KEY_TTL_MS`: as many entries as
 * there are valid keys, so random invalid ones cannot grow it. A monotonic clock: a wall-clock step back must not
 * stretch the trust.
 */
export class ValidKeys {
  // Lapsed entries are swept: keys minted, used once and revoked without end must not grow the process.
  readonly #valid = new SweptMap<string, { key: ApiKeyInfo; expires: number }>((entry, now) => entry.expires <= now);

  /** The keys held: those trusted now, and at most as many whose trust has lapsed. */
  /** `forget`s so far. */
  #generation = 0;
  /** Keys forgotten lately, by id, with the `forget` that did (the oldest let go past `FORGETS_KEPT`). */
  readonly #forgotten = new Map<string, number>();
  /** The latest `forget` let go of `#forgotten`: a lookup from before it cannot tell what it read, so is not cached. */
  #forgottenUpTo = 0;

  get size(): number {
    return this.#valid.size;
  }

  /** The digest's bytes, as stored in the key's row. */
  static digestBytes(cacheKey: string): Buffer {
    return Buffer.from(cacheKey, 'base64');
  }

  /**
   * Marks a lookup's start, for `judge`: its trust is counted from there, and it is not cached when a `forget` (a
   * revocation or an edit here) of its key or a key above it came while it read: the rows it read may be the ones
   * changed. Other keys' forgets do not hold it up.
   */
  lookupStarted(): LookupStart {
    return { generation: this.#generation, at: performance.now() };
  }

  cached(cacheKey: string): ApiKeyCheck | undefined {
    const cached = this.#valid.get(cacheKey);
    return cached && cached.expires > performance.now() ? { ok: true, key: cached.key } : undefined;
  }

  /**
   * The verdict on a stored row for the digest and the chain of keys that minted it (`ancestors`): the hashes
   * compared in constant time, then revocation and expiry of the key and of every ancestor.
   */
  judge(
    cacheKey: string,
    digest: Buffer,
    row: (StoredKey & { hash: Uint8Array }) | undefined,
    chain: LineageRow[],
    started: LookupStart,
  ): ApiKeyCheck {
    if (!row || row.hash.length !== digest.length || !timingSafeEqual(row.hash, digest))
      return { ok: false, reason: 'invalid' };
    const { hash: _hash, ...stored } = row;
    const refusal = lineageRefusal([stored, ...chain]);
    if (refusal) {
      this.#valid.delete(cacheKey);
      return { ok: false, reason: refusal };
    }
    const info = fromRow(stored, chain);
    if (!this.#forgottenSince(started.generation, [stored.id, ...chain.map((row) => row.id)]))
      this.#valid.set(cacheKey, { key: info, expires: started.at + VALID_KEY_TTL_MS });
    return { ok: true, key: info };
  }

  /**
   * Lets go of the checks of a key revoked or edited here and of the keys under it (their verdict and limits come
   * from its row); the other keys' checks stay, so one tenant minting and revoking keys costs no other tenant a
   * lookup. A lookup in flight is not cached (`lookupStarted`).
   */
  forget(keyId: string): void {
    this.#generation += 1;
    this.#forgotten.delete(keyId);
    this.#forgotten.set(keyId, this.#generation);
    if (this.#forgotten.size > FORGETS_KEPT) {
      const [oldest, generation] = this.#forgotten.entries().next().value!;
      this.#forgotten.delete(oldest);
      this.#forgottenUpTo = generation;
    }
    this.#valid.deleteWhere(({ key }) => key.id === keyId || key.ancestors.includes(keyId));
  }

  /** Whether a key of `lineage` (a key, then the keys that minted it) was forgotten after the lookup began. */
  #forgottenSince(generation: number, lineage: readonly string[]): boolean {
    if (generation < this.#forgottenUpTo) return true;
    return lineage.some((id) => (this.#forgotten.get(id) ?? 0) > generation);
  }
}

interface LookupStart {
  /** `forget`s before the lookup. */
  generation: number;
  at: number;
}
