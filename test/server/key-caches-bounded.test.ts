import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryTokenBuckets } from '../../src/budgets/token-buckets.ts';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { SqliteEngine } from '../../src/storage/sqlite-engine.ts';

/**
 * What serve keeps per key in memory lapses with the key's use: a key-minting caller that makes, uses and revokes
 * keys without end (an agent minting a key per task) must not grow the process without bound.
 */
afterEach(() => {
  vi.useRealTimers();
});

describe('the valid-key cache', () => {
  it('lets go of keys it trusted once their trust has lapsed', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const store = new ApiKeyStore(':memory:');
    const checkNewKeys = async (count: number) => {
      for (let index = 0; index < count; index++) {
        const { key } = await store.create(`task-${index}`);
        expect((await store.check(key)).ok).toBe(true);
      }
    };
    await checkNewKeys(1500);
    expect(store.cachedKeys).toBe(1500);
    vi.advanceTimersByTime(1000);
    await checkNewKeys(1600);
    // The first 1,500 are past their trust: kept, they would make 3,100.
    expect(store.cachedKeys).toBeLessThanOrEqual(1600);
    await store.close();
  });
});

describe('the rate buckets of this process', () => {
  it('let go of a bucket once it has refilled: a full bucket and none are the same', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const buckets = new MemoryTokenBuckets();
    // 60 a minute: refilled from empty within a minute.
    const perMs = 60 / 60_000;
    for (let index = 0; index < 1500; index++) expect(buckets.takeNow(`key-${index}`, 60, perMs).taken).toBe(true);
    expect(buckets.size).toBe(1500);
    vi.advanceTimersByTime(1000);
    for (let index = 1500; index < 3100; index++) buckets.takeNow(`key-${index}`, 60, perMs);
    expect(buckets.size).toBeLessThanOrEqual(1600);
    // A bucket let go is taken from as a full one: the same tokens left.
    expect(buckets.takeNow('key-0', 60, perMs)).toEqual({ taken: true, tokens: 59 });
    // One still refilling is kept: 60 taken at once leave it empty.
    for (let index = 0; index < 60; index++) buckets.takeNow('busy', 60, perMs);
    for (let index = 0; index < 3000; index++) buckets.takeNow(`other-${index}`, 60, perMs);
    expect(buckets.takeNow('busy', 60, perMs).taken).toBe(false);
  });
});

/** A store whose queries are counted, and whose `n`th query from `pauseAt(n)` on waits until `open()`. */
function gatedStore() {
  const engine = new SqliteEngine(':memory:');
  let pauseAt: number | undefined;
  let paused = () => {};
  let gate = Promise.resolve();
  let open = () => {};
  const counts = { queries: 0 };
  const gated = new Proxy(engine, {
    get(target, name) {
      if (name === 'run')
        return async (...args: Parameters<SqliteEngine['run']>) => {
          counts.queries += 1;
          if (pauseAt !== undefined && pauseAt-- === 0) {
            paused();
            await gate;
          }
          return target.run(...args);
        };
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store: new ApiKeyStore(gated),
    engine,
    counts,
    /** Holds the `n`th query from now at a gate; resolves once it is there. */
    pause(n: number): Promise<void> {
      pauseAt = n;
      gate = new Promise((resolve) => (open = resolve));
      return new Promise((resolve) => (paused = resolve));
    },
    open: () => open(),
  };
}

describe('a key revoked while its check was reading it', () => {
  it('is refused once the revocation has returned: the check that read it before is not cached', async () => {
    const { store, engine, pause, open } = gatedStore();
    const parent = await store.create('parent');
    const child = await store.create('child', { parentId: parent.info.id });
    // The check's second query (the minting chain) waits at the gate until the revocation has returned.
    const reached = pause(1);
    const checking = store.check(child.key);
    await reached;
    await store.revoke(child.info.id);
    open();
    await checking;
    expect(await store.check(child.key)).toMatchObject({ ok: false, reason: 'revoked' });
    await store.close();
    engine.closeNow();
  });

  it("an unrelated key's revocation meanwhile leaves a check cached", async () => {
    const { store, engine, counts, pause, open } = gatedStore();
    const parent = await store.create('other tenant');
    const child = await store.create('its key', { parentId: parent.info.id });
    const unrelated = await store.create('unrelated');
    const reached = pause(1);
    const checking = store.check(child.key);
    await reached;
    await store.revoke(unrelated.info.id);
    open();
    expect((await checking).ok).toBe(true);
    const before = counts.queries;
    expect((await store.check(child.key)).ok).toBe(true);
    expect(counts.queries - before).toBe(0);
    await store.close();
    engine.closeNow();
  });
});

describe('a revocation or an edit', () => {
  it("lets go of the cached checks of that key and the keys under it only: another tenant's stay", async () => {
    const engine = new SqliteEngine(':memory:');
    let queries = 0;
    const counted = new Proxy(engine, {
      get(target, name) {
        if (name === 'run')
          return (...args: Parameters<SqliteEngine['run']>) => {
            queries += 1;
            return target.run(...args);
          };
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const store = new ApiKeyStore(counted);
    const other = await store.create('other tenant');
    const parent = await store.create('parent');
    const child = await store.create('child', { parentId: parent.info.id });
    const sibling = await store.create('sibling');
    for (const key of [other, parent, child, sibling]) expect((await store.check(key.key)).ok).toBe(true);
    const queriesFor = async (key: string) => {
      const before = queries;
      await store.check(key);
      return queries - before;
    };
    await store.revoke(parent.info.id);
    expect(await queriesFor(other.key)).toBe(0);
    expect(await queriesFor(sibling.key)).toBe(0);
    expect(await store.check(child.key)).toMatchObject({ ok: false, reason: 'revoked' });
    await store.updateLimits(sibling.info.id, { requests_per_minute: 5 });
    expect(await queriesFor(other.key)).toBe(0);
    expect(await store.check(sibling.key)).toMatchObject({ ok: true, key: { limits: { requests_per_minute: 5 } } });
    await store.close();
    engine.closeNow();
  });
});
