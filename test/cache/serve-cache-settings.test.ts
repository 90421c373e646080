import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteCacheStore } from '../../src/cache/sqlite-cache-store.ts';
import { loadConfigFile } from '../../src/cli/config-file.ts';
import { openResponseCache } from '../../src/server/open-response-cache.ts';

/** `serve`'s cache settings: the config file's keys, and the store each `--cache` value opens. */
const dir = mkdtempSync(join(tmpdir(), 'switchyard-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve --cache', () => {
  it('the config file takes cache and cache_ttl, and refuses a store it does not know', () => {
    const file = join(dir, 'serve.yaml');
    writeFileSync(file, 'cache: sqlite\ncache_ttl: 120\n');
    expect(loadConfigFile(file, {})).toEqual({ cache: 'sqlite', cacheTtl: 120 });
    writeFileSync(file, 'cache: disk\n');
    expect(() => loadConfigFile(file, {})).toThrow(/cache/);
  });

  it('each store: memory by default, SQLite in the data directory, Redis only with the server’s Redis, or off', () => {
    expect(openResponseCache({ store: 'off' }, undefined, dir)).toBe(false);
    expect(openResponseCache({ store: 'memory', ttlSeconds: 5 }, undefined, dir)).toEqual({ ttlSeconds: 5 });
    const sqlite = openResponseCache({ store: 'sqlite' }, undefined, dir);
    const store = sqlite === false ? undefined : sqlite.store;
    expect(store).toBeInstanceOf(SqliteCacheStore);
    (store as SqliteCacheStore).close();
    expect(() => openResponseCache({ store: 'redis' }, undefined, dir)).toThrow(/--redis/);
  });
});
