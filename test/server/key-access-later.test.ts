import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { KeyAccess, type KeyChecks } from '../../src/server/key-access.ts';

/**
 * Work the server goes on with after answering (an experiment's cells) checks its key again before each call. What
 * it keeps for that is the key's digest, as the valid-key cache does: never the key itself, which a run of hours
 * would otherwise hold in memory all along.
 */
describe('KeyAccess.laterCallSlot', () => {
  it('checks the key again by its digest, never by the key itself', async () => {
    const store = new ApiKeyStore(':memory:');
    const { key, info } = await store.create('runner');
    const asked: string[] = [];
    const checks: KeyChecks = {
      recheck: async (digest) => {
        asked.push(digest);
        const result = await store.checkDigest(digest);
        if (!result.ok) throw new Error(result.reason);
        return result.key;
      },
      takeRequest: async () => undefined,
      acquire: async () => () => undefined,
    };
    const access = new KeyAccess(info, store, checks, `Bearer ${key}`);
    const release = await access.laterCallSlot();
    release();
    const digest = createHash('sha256').update(key).digest('base64');
    expect(asked).toEqual([digest, digest]);
    expect(JSON.stringify(asked)).not.toContain(key);
    await store.revoke(info.id);
    await expect(access.laterCallSlot()).rejects.toThrow(/revoked/);
    await store.close();
  });
});
