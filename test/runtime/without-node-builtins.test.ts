import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../src/index.ts';

/**
 * The core where Node's built-ins are missing (issue 38): a Worker has no `process.getBuiltinModule`, which is how
 * the core reaches node:fs and node:crypto. Here they are taken away the same way, and the runtime is named as
 * workerd names itself (`navigator.userAgent`).
 */
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Takes the built-ins away, then loads the core afresh (it looks them up once). */
async function asAWorker() {
  vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
  vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
  vi.resetModules();
  return {
    ...(await import('../../src/index.ts')),
    ...(await import('../../src/internal/sha256.ts')),
  };
}

describe('without Node built-ins', () => {
  it('a deployments directory fails when the gateway is made, naming the runtime and what to use', async () => {
    const worker = await asAWorker();
    expect(() => worker.createGateway({ deployments: './deployments', env: {} })).toThrow(
      'A deployments directory (FileDeploymentStore) needs node:fs/promises, which Cloudflare Workers (workerd) ' +
        'does not provide. Use a MemoryDeploymentStore',
    );
  });

  it("the web build's stores: SQLite and PostgreSQL refused naming the runtime (their engines left out)", async () => {
    await asAWorker();
    const { openDatabase } = await import('../../src/stores/open-database.web.ts');
    for (const source of [
      { engine: 'sqlite' as const, path: 'calls.db' },
      { engine: 'postgres' as const, connection: 'postgres://u:secret-password@db/x' },
    ]) {
      const refused = (() => {
        try {
          return openDatabase(source);
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toMatchObject({ name: 'RuntimeUnsupportedError', code: 'runtime_unsupported' });
      expect(String(refused)).toContain(`openStores({ engine: '${source.engine}' }) needs Node.js, Bun or Deno`);
      expect(String(refused)).toContain('Cloudflare Workers (workerd)');
      expect(String(refused)).not.toContain('secret-password');
    }
  });

  it('hashes with the plain SHA-256, equal to node:crypto', async () => {
    const { sha256Bytes, sha256Hex, toHex } = await asAWorker();
    for (const text of ['', 'a', 'é'.repeat(55), 'x'.repeat(64), '🚂'.repeat(1000)]) {
      const expected = createHash('sha256').update(text).digest('hex');
      expect(sha256Hex(text)).toBe(expected);
      expect(toHex(sha256Bytes(new TextEncoder().encode(text)))).toBe(expected);
    }
  });

  it('the simulator answers (its seeds hashed without node:crypto), the same as with it', async () => {
    const ask = (gateway: ReturnType<typeof createGateway>) =>
      gateway.createEmbedding({ model: 'text-embedding-3-small', input: 'hi' });
    const withNode = await ask(createGateway({ mock: true, records: false }));
    const worker = await asAWorker();
    const without = await ask(worker.createGateway({ mock: true, records: false }));
    expect(without.data[0]!.embedding).toEqual(withNode.data[0]!.embedding);
  });
});
