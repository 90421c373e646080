import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteDeploymentStore } from '../../src/deployments/index.ts';
import { DeploymentConflictError, DeploymentValidationError } from '../../src/index.ts';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { databasePath } from '../../src/server/open-database.ts';
import { makeDeployment } from '../deployments/fixtures.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-stores-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteDeploymentStore', () => {
  it('stores, lists newest first per agent, and never overwrites an id', async () => {
    const store = new SqliteDeploymentStore(databasePath(dir));
    const first = makeDeployment({ number: 1 });
    const second = makeDeployment({ number: 2 });
    await store.put(first);
    await store.put(second);
    await store.put(makeDeployment({ agent_id: 'other' }));
    await store.put(first); // identical: a no-op
    await expect(store.put({ ...first, description: 'changed' })).rejects.toBeInstanceOf(DeploymentConflictError);
    await expect(store.put({ ...first, number: -1 } as never)).rejects.toBeInstanceOf(DeploymentValidationError);
    expect(await store.get(first.id)).toEqual(first);
    expect(await store.get('support:production#9')).toBeUndefined();
    expect((await store.list({ agent_id: 'support' })).map((item) => item.id)).toEqual([second.id, first.id]);
    expect(await store.list()).toHaveLength(3);
    store.close();
  });

  it('keeps the first writer when two connections put one id', async () => {
    const a = new SqliteDeploymentStore(databasePath(dir));
    const b = new SqliteDeploymentStore(databasePath(dir));
    const deployment = makeDeployment({ number: 4 });
    await a.put(deployment);
    await expect(b.put({ ...deployment, description: 'second writer' })).rejects.toBeInstanceOf(
      DeploymentConflictError,
    );
    expect(await b.get(deployment.id)).toEqual(deployment);
    a.close();
    b.close();
  });
});

describe('ApiKeyStore', () => {
  it('makes sy- keys of 32 random bytes and stores only their hash and prefix', async () => {
    const keys = new ApiKeyStore(databasePath(dir));
    const { key, info } = await keys.create('ci');
    expect(key).toMatch(/^sy-[A-Za-z0-9_-]{43}$/);
    expect(info).toMatchObject({ name: 'ci', prefix: key.slice(0, 11), revoked_at: null });
    expect(await keys.check(key)).toEqual({ ok: true, key: info });
    await keys.close();
    // Neither the database nor its write-ahead log holds the key.
    const files = ['switchyard.sqlite', 'switchyard.sqlite-wal'].map((name) => {
      try {
        return readFileSync(join(dir, name)).toString('latin1');
      } catch {
        return '';
      }
    });
    expect(files.join('')).toContain(info.prefix);
    expect(files.join('')).not.toContain(key);
  });

  it('refuses missing, malformed, unknown and revoked keys; revokes by prefix or id', async () => {
    const keys = new ApiKeyStore(':memory:');
    const one = await keys.create();
    const two = await keys.create('two');
    expect(await keys.check(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(await keys.check('sk-openai-key')).toEqual({ ok: false, reason: 'invalid' });
    expect(await keys.check(`${one.key.slice(0, -1)}x`)).toEqual({ ok: false, reason: 'invalid' });
    expect((await keys.revoke(one.info.prefix.slice(3))).revoked_at).not.toBeNull();
    expect(await keys.check(one.key)).toEqual({ ok: false, reason: 'revoked' });
    expect((await keys.revoke(two.info.id)).id).toBe(two.info.id);
    expect(await keys.activeCount()).toBe(0);
    await expect(keys.revoke('sy-nothing')).rejects.toThrow(/No API key/);
    expect((await keys.list()).map((key) => key.name)).toEqual([null, 'two']);
    await keys.close();
  });

  it('trusts a valid key for 0.8 s: a revocation elsewhere takes effect within it, its own at once', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const server = new ApiKeyStore(databasePath(dir));
      const cli = new ApiKeyStore(databasePath(dir));
      const { key, info } = await cli.create('ci');
      expect((await server.check(key)).ok).toBe(true);
      await cli.revoke(info.id);
      vi.advanceTimersByTime(700);
      expect((await server.check(key)).ok).toBe(true);
      vi.advanceTimersByTime(150);
      expect(await server.check(key)).toEqual({ ok: false, reason: 'revoked' });

      const other = await server.create('own');
      expect((await server.check(other.key)).ok).toBe(true);
      await server.revoke(other.info.prefix);
      expect(await server.check(other.key)).toEqual({ ok: false, reason: 'revoked' });
      await server.close();
      await cli.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
