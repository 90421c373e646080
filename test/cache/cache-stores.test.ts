import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStore, type ResponseCacheStore, SqliteCacheStore } from '../../src/entries/stores.ts';

/** The stores' own promises: no entry after its time to live, and memory bounded whatever callers send. */
afterEach(() => vi.useRealTimers());

describe.each([
  { name: 'memory', make: (): ResponseCacheStore => new MemoryCacheStore() },
  { name: 'SQLite', make: (): ResponseCacheStore => new SqliteCacheStore(':memory:') },
])('$name', ({ make }) => {
  it('answers an entry until its time to live has passed, then never', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = make();
    await store.set('k', 'answer', 60_000);
    vi.advanceTimersByTime(59_999);
    expect(await store.get('k')).toBe('answer');
    vi.advanceTimersByTime(1);
    expect(await store.get('k')).toBeUndefined();
    expect(await store.get('never written')).toBeUndefined();
    await store.close?.();
  });

  it('a second write replaces the first', async () => {
    const store = make();
    await store.set('k', 'one', 60_000);
    await store.set('k', 'two', 60_000);
    expect(await store.get('k')).toBe('two');
    await store.close?.();
  });
});

describe('MemoryCacheStore bounds', () => {
  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const store = new MemoryCacheStore({ maxEntries: 2 });
    await store.set('a', '1', 60_000);
    await store.set('b', '2', 60_000);
    await store.get('a');
    await store.set('c', '3', 60_000);
    expect(store.size).toBe(2);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('1');
    expect(await store.get('c')).toBe('3');
  });

  it('keeps at most maxBytes, and never an entry larger than that', async () => {
    const store = new MemoryCacheStore({ maxBytes: 100 });
    for (let n = 0; n < 10; n++) await store.set(`key${n}`, 'x'.repeat(40), 60_000);
    expect(store.bytes).toBeLessThanOrEqual(100);
    expect(store.size).toBe(2);
    await store.set('huge', 'x'.repeat(200), 60_000);
    expect(await store.get('huge')).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(100);
  });
});

describe('SqliteCacheStore bounds', () => {
  it('a prune drops expired rows and those past maxEntries, keeping the longest-lived', async () => {
    const store = new SqliteCacheStore(':memory:', { maxEntries: 3 });
    for (let n = 1; n <= 5; n++) await store.set(`k${n}`, 'v', n * 60_000);
    await store.prune();
    const kept = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await store.get(`k${n}`)) !== undefined));
    expect(kept).toEqual([false, false, true, true, true]);
    store.close();
  });
});
