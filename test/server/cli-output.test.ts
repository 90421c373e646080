import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDeployment } from '../deployments/fixtures.ts';

/**
 * The CLI prints names its users chose (key names, deployment fields) and messages that quote
 * them. A name holding a terminal escape (`ESC [2J` clears the screen, `ESC ]` sets the title) or a bidirectional
 * override (which reorders the rest of the line) must show as visible escapes, never act on the terminal; and a
 * deployment store URL's credentials never appear in what it prints.
 */

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const run = (...args: string[]) => promisify(execFile)(node, [cli, ...args], { cwd: root, env: process.env });
/** What a terminal could act on: C0 (but the line feeds of the output itself), DEL, C1, bidi formatting. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them in the output is the test.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A key name: clears the screen, sets the window title, rings the bell, reverses the rest (argv holds no NUL). */
const hostile = 'ci\u001b[2J\u001b]0;pwned\u0007 bot\u202etxt.exe';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-output-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('CLI output neutralises control characters', () => {
  it('keys list shows a hostile key name escaped; --json keeps it exact and valid', async () => {
    await run('keys', 'create', '--name', hostile, '--data', dataDir);
    const { stdout } = await run('keys', 'list', '--data', dataDir);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain('ci\\x1b[2J\\x1b]0;pwned\\x07 bot\\u202etxt.exe');

    const json = (await run('keys', 'list', '--json', '--data', dataDir)).stdout;
    expect(json).not.toMatch(RAW);
    expect(JSON.parse(json)).toEqual([expect.objectContaining({ name: hostile })]);
  });

  it('deployments list and get escape what a stored deployment holds', async () => {
    const deployment = makeDeployment({ agent_id: 'cli-out' }, { model: 'gpt-4o\u001b[8m\u0085\u2066' });
    const file = join(dataDir, 'hostile.json');
    writeFileSync(file, JSON.stringify(deployment));
    await run('deployments', 'push', file, '--data', dataDir);
    const table = (await run('deployments', 'list', '--data', dataDir)).stdout;
    expect(table).not.toMatch(RAW);
    expect(table).toContain('gpt-4o\\x1b[8m\\x85\\u2066');
    const json = (await run('deployments', 'get', deployment.id, '--data', dataDir)).stdout;
    expect(json).not.toMatch(RAW);
    expect(JSON.parse(json)).toEqual(deployment);
  });

  it('error messages quoting a caller-chosen id are escaped too', async () => {
    const failed = await run('deployments', 'get', 'nope\u001b[31m\u202e', '--data', dataDir).then(
      () => undefined,
      (error: { stderr: string; code: number }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).not.toMatch(RAW);
    expect(failed?.stderr).toContain('nope\\x1b[31m\\u202e');
  });

  it('a deployment store URL with credentials: the error shows them as [redacted]', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    await new Promise<void>((done) => server.close(() => done()));
    const failed = await promisify(execFile)(
      node,
      [cli, 'deployments', 'list', '--deployments', `http://carol:cli-url-secret@127.0.0.1:${port}`],
      { cwd: root, env: { ...process.env, SWITCHYARD_API_KEY: 'sy-cli-output-key-0123456789' } },
    ).then(
      () => undefined,
      (error: { stderr: string; code: number }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`http://[redacted]@127.0.0.1:${port}`);
    expect(failed?.stderr).not.toContain('cli-url-secret');
    expect(failed?.stderr).not.toContain('carol');
  });
});
