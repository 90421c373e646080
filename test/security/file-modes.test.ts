import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/cli/config-file.ts';
import { databasePath, startServer } from '../../src/server/index.ts';

/**
 * Issue 36, item 14: the SQLite file (API keys, call records with prompts and answers) was created readable by every
 * user of the machine (0644 under the usual umask), and a config file holding API keys written in it was read
 * without a word however open it was. Now the data directory is made 0700 and its SQLite files 0600; an existing
 * file others can read is reported at the start, and so is a config file others can read that holds secrets.
 */
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-modes-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** `serve` on `dataDir` with a key made and a call recorded; `whileUp` runs before it closes. */
async function serveOnce(dataDir: string, whileUp: () => void = () => undefined) {
  const logs: Array<Record<string, unknown>> = [];
  const server = await startServer({
    mock: true,
    port: 0,
    dataDir,
    cache: { store: 'sqlite' },
    log: (line) => logs.push(line),
  });
  await server.keys.create('admin');
  await server.gateway.createCompletion({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  await server.gateway.flush();
  whileUp();
  await server.close();
  return logs;
}

describe.skipIf(process.platform === 'win32')('the data directory', () => {
  it('is created 0700, its SQLite file (and WAL) 0600', async () => {
    const dataDir = join(root, 'data');
    const database = databasePath(dataDir);
    const cache = join(dataDir, 'response-cache.sqlite');
    await serveOnce(dataDir, () => {
      expect(modeOf(dataDir).toString(8)).toBe('700');
      for (const file of [database, `${database}-wal`, `${database}-shm`, cache]) {
        expect(existsSync(file), file).toBe(true);
        expect(modeOf(file).toString(8), file).toBe('600');
      }
    });
  });

  it('an existing SQLite file others can read is reported at the start, not changed behind the operator', async () => {
    const dataDir = join(root, 'data');
    await serveOnce(dataDir);
    chmodSync(databasePath(dataDir), 0o644);
    const logs = await serveOnce(dataDir);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'the data file is readable by other users of this machine',
        path: databasePath(dataDir),
        mode: '644',
      }),
    );
    expect(modeOf(databasePath(dataDir)).toString(8)).toBe('644');
  });
});

describe.skipIf(process.platform === 'win32')('a config file holding secrets', () => {
  /** The process warnings `loadConfigFile` emits (they are emitted on the next tick). */
  async function warningsOf(path: string): Promise<Array<Error & { code?: string }>> {
    const seen: Array<Error & { code?: string }> = [];
    const listener = (warning: Error & { code?: string }) => seen.push(warning);
    process.on('warning', listener);
    try {
      loadConfigFile(path, { OPENAI_KEY: 'sk-from-the-environment' });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    return seen.filter((warning) => warning.code === 'SWITCHYARD_CONFIG_READABLE');
  }

  const write = (name: string, text: string, mode: number) => {
    const path = join(root, name);
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };

  it('is reported when others can read it, naming the secrets (never their values)', async () => {
    const path = write(
      'serve.yaml',
      'providers:\n  openai:\n    api_key: sk-literal-secret-123\nredis: redis://:hunter22@127.0.0.1:6379\n',
      0o644,
    );
    const [warning, ...more] = await warningsOf(path);
    expect(more).toEqual([]);
    expect(warning?.message).toContain(path);
    expect(warning?.message).toContain('providers.openai.api_key');
    expect(warning?.message).toContain('redis');
    expect(warning?.message).toMatch(/chmod 600/);
    expect(warning?.message).not.toContain('sk-literal-secret-123');
    expect(warning?.message).not.toContain('hunter22');
  });

  it('is quiet at 0600, and when its secrets come from the environment', async () => {
    const literal = 'providers:\n  openai:\n    api_key: sk-literal-secret-123\n';
    expect(await warningsOf(write('private.yaml', literal, 0o600))).toEqual([]);
    const fromEnv = 'providers:\n  openai:\n    api_key: { env: OPENAI_KEY }\nredis: redis://127.0.0.1:6379\n';
    expect(await warningsOf(write('shared.yaml', fromEnv, 0o644))).toEqual([]);
  });
});
