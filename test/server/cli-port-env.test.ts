import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';

/**
 * `serve` takes its port from SWITCHYARD_PORT when `--port` is not given (as the docs test gives each block that
 * starts a server a port of its own), and `--port` wins over it.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-port-env-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The URL `serve` logs it listens on. */
async function listensOn(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(node, [cli, 'serve', '--mock', '--data', dataDir, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  try {
    await expect.poll(() => log, { timeout: 30_000 }).toContain('"msg":"listening"');
    return /"msg":"listening","url":"([^"]+)"/.exec(log)![1]!;
  } finally {
    child.kill('SIGTERM');
  }
}

describe('serve --port and SWITCHYARD_PORT', () => {
  it('listens on SWITCHYARD_PORT without --port', async () => {
    const port = await freePort();
    expect(await listensOn([], { SWITCHYARD_PORT: String(port) })).toBe(`http://127.0.0.1:${port}`);
  }, 40_000);

  it('--port wins over SWITCHYARD_PORT', async () => {
    const port = await freePort();
    expect(await listensOn(['--port', String(port)], { SWITCHYARD_PORT: '1' })).toBe(`http://127.0.0.1:${port}`);
  }, 40_000);
});
