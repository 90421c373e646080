import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresKeyStore } from '../../src/server/postgres-key-store.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
/** The CLI with an empty data directory and no database in its environment unless given. */
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(node, [cli, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });

const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('PostgreSQL binaries not found: the `keys` on PostgreSQL tests are skipped.');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-cli-pg-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await postgres?.stop();
});

/** The throwaway server's URL with a password (its loopback connections are trusted, so any password works). */
const withPassword = (url: string) => url.replace('://switchyard@', '://switchyard:hunter2@');

describe.skipIf(!postgres)('switchyard keys against PostgreSQL', () => {
  it('create, list and revoke in PostgreSQL via --database-url-file, SWITCHYARD_DATABASE_URL, --database', async () => {
    const url = postgres!.url;
    const file = join(dir, 'database-url');
    writeFileSync(file, `${url}\n`, { mode: 0o600 });
    const created = await run(['keys', 'create', '--name', 'ops', '--database-url-file', file]);
    const key = created.stdout.trim();
    expect(key).toMatch(/^sy-/);
    expect(created.stderr).not.toContain('process list');

    const listed = JSON.parse((await run(['keys', 'list', '--json'], { SWITCHYARD_DATABASE_URL: url })).stdout);
    expect(listed).toEqual([expect.objectContaining({ name: 'ops', prefix: key.slice(0, 11), revoked_at: null })]);
    expect(JSON.stringify(listed)).not.toContain('hash');
    // Nothing went to the SQLite file of the data directory.
    await expect(run(['keys', 'list', '--json'])).rejects.toThrow(/does not exist/);

    const store = new PostgresKeyStore(url);
    try {
      expect(await store.check(key)).toMatchObject({ ok: true });
      await expect(run(['keys', 'create', '--name', 'ops', '--database', url])).rejects.toThrow(/exists already/);
      const revoked = await run(['keys', 'revoke', key.slice(0, 11), '--database', url]);
      expect(revoked.stdout).toContain('Revoked');
      // This process found the key valid a moment ago and trusts that for 0.8 s: then the other's revocation shows.
      await expect.poll(() => store.check(key), { timeout: 5_000 }).toMatchObject({ ok: false, reason: 'revoked' });
    } finally {
      await store.close();
    }
  });

  it('a password on the command line is accepted, with a warning naming the other ways', async () => {
    const listed = await run(['keys', 'list', '--json', '--database', withPassword(postgres!.url)]);
    expect(JSON.parse(listed.stdout)).toBeInstanceOf(Array);
    expect(listed.stderr).toContain('--database holds a password');
    expect(listed.stderr).toContain('SWITCHYARD_DATABASE_URL');
    expect(listed.stderr).toContain('--database-url-file');
    const quiet = await run(['keys', 'list', '--json'], { SWITCHYARD_DATABASE_URL: withPassword(postgres!.url) });
    expect(quiet.stderr).not.toContain('password');
    await expect(run(['keys', 'list', '--database', postgres!.url, '--database-url-file', 'x'])).rejects.toThrow(
      /not both/,
    );
  });

  it('serve logs the warning as a JSON line, and takes the URL from --database-url-file without one', async () => {
    const warned = await serveUntilListening(['--database', withPassword(postgres!.url)]);
    const warning = warned.find((line) => line.code === 'SWITCHYARD_PASSWORD_IN_ARGUMENTS');
    expect(warning).toMatchObject({ level: 'warn', msg: expect.stringContaining('process list') });
    expect(JSON.stringify(warned)).not.toContain('hunter2');

    // pg also takes the password as a query parameter: warned of, and kept out of the log, alike.
    const asParameter = await serveUntilListening(['--database', `${postgres!.url}?password=hunter3`]);
    expect(asParameter.some((line) => line.code === 'SWITCHYARD_PASSWORD_IN_ARGUMENTS')).toBe(true);
    expect(JSON.stringify(asParameter)).not.toContain('hunter3');

    const file = join(dir, 'serve-database-url');
    writeFileSync(file, withPassword(postgres!.url));
    const quiet = await serveUntilListening(['--database-url-file', file]);
    expect(quiet.some((line) => line.code === 'SWITCHYARD_PASSWORD_IN_ARGUMENTS')).toBe(false);
    expect(JSON.stringify(quiet)).toContain('postgres');
  });
});

/** `serve --mock` with `args` until it listens; its log lines, then SIGTERM. */
async function serveUntilListening(args: string[]): Promise<Array<Record<string, unknown>>> {
  const child = spawn(node, [cli, 'serve', '--mock', '--port', '0', '--data', dir, ...args], { cwd: root });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise((done) => child.once('exit', done));
  try {
    await expect.poll(() => stderr, { timeout: 15_000 }).toContain('"msg":"listening"');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
