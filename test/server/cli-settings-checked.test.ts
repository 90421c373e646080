import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/cli/config-file.ts';
import { redisUrlOf } from '../../src/cli/connection-urls.ts';
import { parseWorkers } from '../../src/cli/serve-cluster.ts';

/** serve's settings refused, or said, rather than taken and ignored (or printed with their secrets). */
const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'switchyard-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve settings', () => {
  it('a Redis URL without its scheme is refused, its password never repeated', () => {
    for (const [options, env] of [
      [{ redis: 'default:s3cret-pass@redis:6379/0' }, {}],
      [{}, { SWITCHYARD_REDIS_URL: 'default:s3cret-pass@redis:6379' }],
    ] as const) {
      const refused = (() => {
        try {
          redisUrlOf(options, env);
        } catch (error) {
          return error as Error;
        }
      })();
      expect(refused?.message).toMatch(/is not a redis:\/\/ or rediss:\/\/ URL/);
      expect(refused?.message).not.toContain('s3cret-pass');
    }
    expect(redisUrlOf({ redis: 'rediss://:pw@cache:6380' }, {})).toBe('rediss://:pw@cache:6380');
  });

  it('a misspelt provider id in the config file is refused, naming the ids there are', () => {
    const file = join(dir, 'providers.yaml');
    writeFileSync(file, 'providers:\n  antropic:\n    api_key: sk-ant-x\n');
    expect(() => loadConfigFile(file, {})).toThrow(/providers\.antropic: no provider has this id \(.*anthropic/);
  });

  it('--workers and the file’s workers are at most 256', () => {
    expect(parseWorkers('256')).toBe(256);
    expect(() => parseWorkers('100000')).toThrow('from 1 to 256');
    const file = join(dir, 'workers.json');
    writeFileSync(file, JSON.stringify({ workers: 100_000 }));
    expect(() => loadConfigFile(file, {})).toThrow('workers');
  });

  it('--budgets-on-store-error holds for keys’ own budgets: in force without a server budget', async () => {
    const node = join(root, 'node_modules/.bin/node');
    const child = execFile(node, [
      join(root, 'src/cli.ts'),
      'serve',
      '--mock',
      '--port',
      '0',
      '--data',
      join(dir, 'data'),
      '--budgets-on-store-error',
      'open',
    ]);
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      await expect.poll(() => stderr, { timeout: 15_000 }).toContain('"msg":"configuration"');
      const line = stderr.split('\n').find((text) => text.includes('"msg":"configuration"'))!;
      expect(JSON.parse(line).budgets).toMatchObject({ on_store_error: 'open' });
    } finally {
      child.kill();
      await promisify(setImmediate)();
    }
  });
});
