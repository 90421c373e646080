import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPackage } from '../helpers/built-package.ts';

/**
 * What a user sees when an error of the built package goes uncaught (issue 35): Node prints the source line where it
 * was thrown, and the minified build's lines were whole chunks, so a mistyped model printed ~53 KB of code before the
 * message. Now it prints the message and the stack, in at most 4 KB.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const work = join(root, '.docs-run', `uncaught-${process.pid}`);
const LIMIT = 4096;

beforeAll(async () => {
  const built = await sharedPackage();
  const app = join(work, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
  symlinkSync(built, join(app, 'node_modules', 'switchyard-llm'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `code` as the application's module; its stderr and exit code. */
async function uncaught(code: string): Promise<{ code: number; stderr: string }> {
  const file = join(work, 'app', `app-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(file, code);
  return promisify(execFile)(node, [file], { cwd: join(work, 'app'), env: { PATH: process.env.PATH ?? '' } }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe('an uncaught error of the built package', () => {
  it('a mistyped model: the message and the stack, in at most 4 KB', async () => {
    const { code, stderr } = await uncaught(
      "import { createCompletion } from 'switchyard-llm';\n" +
        "await createCompletion({ model: 'gpt-sol-latset', messages: [{ role: 'user', content: 'hi' }] });\n",
    );
    expect(code).toBe(1);
    expect(stderr).toContain('ModelNotFoundError: Unknown model "gpt-sol-latset". Did you mean "gpt-sol-latest"?');
    expect(Buffer.byteLength(stderr), stderr.slice(0, 2000)).toBeLessThanOrEqual(LIMIT);
  });

  it('an invalid request, thrown deeper in the pipeline', async () => {
    const { code, stderr } = await uncaught(
      "import { createGateway } from 'switchyard-llm';\n" +
        'await createGateway({ mock: true }).createCompletion({ model: "gpt-sol-latest", messages: 42 });\n',
    );
    expect(code).toBe(1);
    expect(stderr).toContain('InvalidRequestError');
    expect(Buffer.byteLength(stderr), stderr.slice(0, 2000)).toBeLessThanOrEqual(LIMIT);
  });
});
