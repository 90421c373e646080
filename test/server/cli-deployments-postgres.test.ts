import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDeployment } from '../deployments/fixtures.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, jsonOf, startTestServer } from './start-test-server.ts';

/** `switchyard deployments … --database`: the deployments `serve --database` serves. Skipped without PostgreSQL. */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the deployments CLI on PostgreSQL (no PostgreSQL installed).');
const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'switchyard-cli-pg-'));
const dataDir = join(dir, 'never-created');
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(join(root, 'node_modules/.bin/node'), [join(root, 'src/cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!postgres)('switchyard deployments --database', () => {
  it('pushes into PostgreSQL (--database or SWITCHYARD_DATABASE_URL), served by serve --database', async () => {
    const url = postgres!.url;
    const deployment = makeDeployment({ agent_id: 'cli-pg', number: 1 });
    const file = join(dir, 'deployment.json');
    writeFileSync(file, JSON.stringify(deployment));
    const push = ['deployments', 'push', file, '--data', dataDir];
    expect((await run([...push, '--database', url])).stdout).toBe(`Stored ${deployment.id}\n`);
    expect((await run(push, { SWITCHYARD_DATABASE_URL: url })).stdout).toBe(`Unchanged ${deployment.id}\n`);
    const listed = await run(['deployments', 'list', '--agent-id', 'cli-pg', '--data', dataDir, '--database', url]);
    expect(listed.stdout).toContain(deployment.id);
    writeFileSync(file, JSON.stringify({ ...deployment, description: 'changed' }));
    await expect(run([...push, '--database', url])).rejects.toMatchObject({
      stderr: expect.stringContaining('already exists'),
    });
    expect(existsSync(dataDir)).toBe(false);

    const server = await startTestServer({ database: url });
    try {
      const served = await api(server, `/v1/deployments/${encodeURIComponent(deployment.id)}`);
      expect((await jsonOf(served)).id).toBe(deployment.id);
    } finally {
      await server.stop();
    }
  });

  it('takes the URL from --database-url-file, and warns of a password typed on the command line', async () => {
    const url = postgres!.url;
    const deployment = makeDeployment({ agent_id: 'cli-pg-file', number: 1 });
    const file = join(dir, 'file-deployment.json');
    writeFileSync(file, JSON.stringify(deployment));
    const urlFile = join(dir, 'database-url');
    writeFileSync(urlFile, `${url}\n`, { mode: 0o600 });
    const pushed = await run(['deployments', 'push', file, '--data', dataDir, '--database-url-file', urlFile]);
    expect(pushed.stdout).toBe(`Stored ${deployment.id}\n`);
    expect(pushed.stderr).not.toContain('process list');
    const withPassword = url.replace('://switchyard@', '://switchyard:hunter2@');
    const listed = await run(['deployments', 'list', '--agent-id', 'cli-pg-file', '--database', withPassword]);
    expect(listed.stdout).toContain(deployment.id);
    expect(listed.stderr).toContain('--database holds a password');
    expect(listed.stderr).toContain('--database-url-file');
    expect(listed.stderr).not.toContain('hunter2');
    await expect(run(['deployments', 'list', '--database', url, '--database-url-file', urlFile])).rejects.toThrow(
      /not both/,
    );
  });
});
