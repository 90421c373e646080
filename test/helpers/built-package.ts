import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
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

/** What the build reads: the sources, the manifest and the build's configuration. */
const BUILD_INPUTS = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json'];

/**
 * `buildPackage` once for the tree as it is: `.docs-run/package-<hash of what the build reads>`, shared by every test
 * that needs the built package and by later runs until a source changes. Only read: never written to, never removed
 * by the tests that use it. Built aside and renamed into place, so no test sees half of one; of two built at once,
 * one is kept. Builds of other trees older than an hour are removed.
 */
export async function sharedPackage(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of BUILD_INPUTS.flatMap(filesOf).sort()) hash.update(file).update(readFileSync(join(root, file)));
  const builds = join(root, '.docs-run');
  const name = `package-${hash.digest('hex').slice(0, 16)}`;
  const dir = join(builds, name);
  if (existsSync(join(dir, 'package.json'))) return dir;
  const staging = join(builds, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  try {
    await buildPackage(staging);
    // The CLI as npm installs it: executable.
    chmodSync(join(staging, 'dist', 'cli.js'), 0o755);
    renameSync(staging, dir);
  } catch (error) {
    if (!existsSync(join(dir, 'package.json'))) throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const anHourAgo = Date.now() - 3_600_000;
  for (const entry of readdirSync(builds))
    if (/^package-[0-9a-f]{16}$/.test(entry) && entry !== name && statSync(join(builds, entry)).mtimeMs < anHourAgo)
      rmSync(join(builds, entry), { recursive: true, force: true });
  return dir;
}

function filesOf(path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}
