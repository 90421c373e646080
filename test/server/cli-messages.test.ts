import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 25, section 5: the CLI explains itself. A wrong value, a busy port, a database that is not PostgreSQL, a
 * data directory that does not exist, a key name taken twice, a list that does not answer: each is one message that
 * names what was wrong and what to do, never the whole help or a stack of escapes.
 */

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
type Run = { code?: number; stdout: string; stderr: string };
const run = (args: string[], options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {}): Promise<Run> =>
  promisify(execFile)(node, [...(options.nodeArgs ?? []), '--conditions=switchyard-source', cli, ...args], {
    cwd: root,
    env: { ...process.env, ...options.env },
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Run) => error,
  );
/** Runs a command that must fail, and returns its stderr. */
const failing = async (args: string[], options?: Parameters<typeof run>[1]): Promise<string> => {
  const result = await run(args, options);
  expect(result.code, `${args.join(' ')} should fail; stdout: ${result.stdout}`).toBe(1);
  return result.stderr;
};
const lines = (text: string) => text.trimEnd().split('\n');

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-messages-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a bad option value is one line naming the option and what it takes', () => {
  it.each([
    [['serve', '--rate-limit-on-store-error', 'maybe'], '--rate-limit-on-store-error', 'open, closed'],
    [['serve', '--port', 'abc'], '--port', '0 to 65535'],
    [['serve', '--budget', 'lots'], '--budget', 'trace:2.5'],
    [['serve', '--workers', '0'], '--workers', 'or auto'],
    [['keys', 'create', '--scope', 'everything'], '--scope', 'chat, models'],
    [['keys', 'create', '--expires-in-days', '0'], '--expires-in-days', 'at least 1'],
    [['keys', 'create', '--budget', '5/week'], '--budget', 'expected <dollars>[/day|/month|/lifetime], e.g. 5/day.'],
  ])('%j', async (args, option, accepted) => {
    const stderr = await failing([...args, '--data', join(dataDir, 'unused')]);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toContain(option);
    expect(stderr).toContain(accepted);
    expect(stderr).not.toContain('Usage:');
  });
});

describe('switchyard serve', () => {
  let busy: NetServer;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => busy.close());

  it('says a port is in use and suggests --port', async () => {
    const stderr = await failing(['serve', '--mock', '--port', String(port), '--data', dataDir]);
    expect(stderr).toContain(`port ${port}`);
    expect(stderr).toContain('in use');
    expect(stderr).toContain('--port');
    expect(stderr).not.toContain('EADDRINUSE');
  });

  it('with --workers too: the primary finds the port in use before any worker starts', async () => {
    const stderr = await failing(['serve', '--mock', '--workers', '2', '--port', String(port), '--data', dataDir]);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toContain(`port ${port}`);
    expect(stderr).toContain('in use');
  });

  it('refuses a --database that is not a PostgreSQL URL by name, without its password', async () => {
    const other = await failing(['serve', '--mock', '--port', '0', '--database', 'mysql://me:hunter2@db/app']);
    expect(other).toMatch(/--database.*PostgreSQL/);
    expect(other).not.toContain('hunter2');
    const malformed = await failing(['serve', '--mock', '--port', '0', '--database', 'postgres://me:hunter2@[db']);
    expect(malformed).toMatch(/--database.*not a URL/);
    expect(malformed).not.toContain('hunter2');
    const words = await failing(['serve', '--mock', '--port', '0', '--database', 'my database']);
    expect(words).toMatch(/--database.*not a URL/);
    const env = { SWITCHYARD_DATABASE_URL: 'redis://localhost:6379' };
    expect(await failing(['serve', '--mock', '--port', '0'], { env })).toMatch(/SWITCHYARD_DATABASE_URL.*PostgreSQL/);
  });
});

describe('switchyard keys', () => {
  it('list and revoke say a missing data directory does not exist, and leave it missing', async () => {
    const missing = join(dataDir, 'no-such-dir');
    expect(await failing(['keys', 'list', '--data', missing])).toContain(`${missing} does not exist`);
    expect(await failing(['keys', 'revoke', 'sy-AbCdEfGh', '--data', missing])).toContain('does not exist');
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses a second key with the name of a key in use; a revoked key frees its name', async () => {
    const dir = join(dataDir, 'names');
    const first = await run(['keys', 'create', '--name', 'ci', '--data', dir]);
    expect(first.code).toBe(0);
    const stderr = await failing(['keys', 'create', '--name', 'ci', '--data', dir]);
    expect(stderr).toContain('"ci"');
    expect(stderr).toContain('--name');
    expect((await run(['keys', 'revoke', first.stdout.slice(0, 11), '--data', dir])).code).toBe(0);
    expect((await run(['keys', 'create', '--name', 'ci', '--data', dir])).code).toBe(0);
  });

  it('names the command that was run when Node.js has no node:sqlite', async () => {
    const stderr = await failing(['keys', 'list', '--data', dataDir], { nodeArgs: ['--no-experimental-sqlite'] });
    expect(stderr).toContain('switchyard keys list needs node:sqlite');
    expect(stderr).not.toContain('serve');
  });
});

describe('switchyard catalog update', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const list = readFileSync(join(root, 'test/fixtures/catalog-sources/models-dev.json'));
    server = createHttpServer((request, response) => {
      // `/slow` never answers: the timeout must end the wait.
      if (request.url === '/slow') return;
      response.setHeader('content-type', 'application/json').end(list);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('shows what it fetches and what it read on stderr, the difference on stdout', async () => {
    const result = await run(['catalog', 'update', '--from', `${base}/api.json`, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`fetching ${base}/api.json`);
    expect(result.stderr).toMatch(/read \d+ models/);
    expect(result.stdout).toMatch(/^catalog update from /);
  });

  it('gives up after --timeout seconds, naming the option', async () => {
    const stderr = await failing(['catalog', 'update', '--from', `${base}/slow`, '--timeout', '1', '--dry-run']);
    expect(stderr).toContain('no answer within 1 s');
    expect(stderr).toContain('--timeout');
  });
});

describe('switchyard deployments push', () => {
  it('prints each problem of a broken file on its own line', async () => {
    const file = join(dataDir, 'broken.json');
    writeFileSync(file, JSON.stringify({ id: 'x' }));
    const stderr = await failing(['deployments', 'push', file, '--data', dataDir]);
    expect(stderr).not.toContain('\\x0a');
    expect(lines(stderr).length).toBeGreaterThan(1);
    for (const line of lines(stderr)) expect(line).toContain(file);
  });
});
