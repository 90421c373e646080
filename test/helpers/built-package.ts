import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '../..');
const node = realpathSync(join(root, 'node_modules/.bin/node'));

/**
 * The package as users get it, built by the project's own tsup config (ESM, the build users import and the CLI runs;
 * no declarations) into `dir`: `dir/package.json` and `dir/dist/`. `dir` must be inside the repository, for its
 * dependencies to resolve from `node_modules` as they do from an install. About 5 seconds.
 */
export async function buildPackage(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const tsup = realpathSync(join(root, 'node_modules/.bin/tsup'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '' };
  await promisify(execFile)(node, [tsup, '--no-dts', '--format', 'esm', '--out-dir', join(dir, 'dist')], {
    cwd: root,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  return dir;
}
