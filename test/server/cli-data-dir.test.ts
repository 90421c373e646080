import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A `--data` that cannot be a data directory is said to be so, naming the option and the directory (issue 35): a
 * file gave a raw `EEXIST: file already exists, mkdir`, and a directory the user cannot write was blamed on the port
 * ("needs privileges …: choose a port above 1023").
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
/** Root may write anywhere: the unwritable case runs as `nobody` then. */
const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-data-dir-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'a-file'), 'not a directory');
  mkdirSync(join(dir, 'read-only'), { mode: 0o555 });
  chmodSync(join(dir, 'read-only'), 0o555);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command's exit code and stderr; it must end by itself (a serve that started would not). */
async function failure(args: string[], options: { uid?: number; gid?: number } = {}) {
  const ran = await promisify(execFile)(node, [cli, ...args], { cwd: dir, timeout: 20_000, ...options }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  return ran;
}

describe('--data that cannot be a data directory', () => {
  it.each([
    ['serve', ['serve', '--mock', '--port', '0']],
    ['keys create', ['keys', 'create']],
    ['deployments list', ['deployments', 'list']],
  ])('%s: a file is named as the data directory, not EEXIST', async (_, args) => {
    const file = join(dir, 'a-file');
    const { code, stderr } = await failure([...args, '--data', file]);
    expect(code).toBe(1);
    expect(stderr).toContain(`--data ${file} is a file, not a directory`);
    expect(stderr).not.toContain('EEXIST');
  });

  it('a data directory under a file cannot be created, and says why', async () => {
    const inside = join(dir, 'a-file', 'data');
    const { code, stderr } = await failure(['keys', 'create', '--data', inside]);
    expect(code).toBe(1);
    expect(stderr).toContain(`--data ${inside} cannot be created: ${join(dir, 'a-file')} is a file`);
  });

  it.each([
    ['a directory the user cannot write', 'read-only'],
    ['one it cannot create', 'read-only/data'],
  ])('serve: %s is the data directory fault, not the port', async (_, name) => {
    const data = join(dir, name);
    const { code, stderr } = await failure(['serve', '--mock', '--port', '0', '--data', data], nobody);
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`--data ${data}.*(cannot write|cannot be created).*\\(EACCES\\)`));
    expect(stderr).not.toContain('port');
  });
});
